/**
 * Undo of a move (design §5.1). Every move (move.ts) gets a `move_id` and an entry in the grid's
 * undo ring (domain/undo-ring.ts): the post's previous override key, the post that was right
 * above it, the version the move commits and how many other rows it rewrote.
 *
 * The entry rides in the move's own conditional batch (a static cell of the override partition),
 * so it commits exactly when the move does: no write before the compare-and-set, and a move whose
 * response was lost in a crash (an Idempotency-Key replay hands out the same move_id) still has
 * it, exact restore included. It costs no read either: the previous key comes from the writer's
 * snapshot and the previous anchor from the slice the move planner read (move.ts; only a
 * post moved farther than that slice reaches needs one chronological read to find it). A lost CAS re-plans
 * on a fresh snapshot and pushes the entry again, so the entry that commits is the one planned
 * for the attempt that won.
 *
 * After a Paxos timeout an earlier attempt may be the one that committed, so from then on the
 * entry keeps the position read before the timeout and gives up the exact restore
 * (`UNKNOWN_RELABELS`): undo moves back by anchor.
 *
 * `undoMove` goes through writeGrid like every write, and finds the entry in the very snapshot it
 * commits against (records older releases wrote to `grid_moves` are still looked up there):
 *   - exact: when the grid is still at the version the move committed (nothing else changed it)
 *     and the move rewrote only that row, the previous key is written back as it was (a post that
 *     had no override gets its own ID as key: same position, and no null, so no tombstone);
 *   - otherwise: a move back after the previous anchor ("undo is a move back"), with the move's
 *     usual answers (409 if that anchor left the grid or the post is pinned now).
 */
import { DomainError } from '../../domain/errors.js';
import { findUndo, type UndoEntry } from '../../domain/undo-ring.js';
import type { MoveRecord, MovesStore } from '../../store/moves-store.js';
import type { Flags } from '../flags.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { movePlanner, undoBounds, type MovePlanPorts } from './move.js';

export interface UndoPorts extends MovePlanPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly flags: Pick<Flags, 'require'>;
  readonly moves: Pick<MovesStore, 'ttlS' | 'get'>;
}

type Rec = Pick<MoveRecord, 'postId' | 'prevKey' | 'prevAfter' | 'version' | 'relabelled'>;

export function undoMove(
  ports: UndoPorts,
  profileId: bigint,
  moveId: string,
  options: WriteOptions = {},
) {
  return trackOp('undo', async () => {
    await ports.flags.require('writes.reorder');
    const opts: WriteOptions = { ...options, op: 'undo' };
    let legacy: Promise<MoveRecord | undefined> | undefined;
    const recordIn = async (ring: readonly UndoEntry[] | undefined): Promise<Rec> => {
      const rec =
        findUndo(ring ?? [], moveId, undoBounds(ports)) ??
        (await (legacy ??= ports.moves.get(profileId, moveId)));
      if (!rec)
        throw new DomainError('post_not_found', 'no such move (or its undo expired)', {
          move_id: moveId,
        });
      return rec;
    };
    return ports.writer.writeGrid<{ exact: boolean }>(
      profileId,
      async (ctx) => {
        const { head } = ctx.snapshot;
        const rec = await recordIn(head.recentMoves);
        if (
          head.version === rec.version &&
          rec.relabelled === 0 &&
          !head.pins.includes(rec.postId)
        ) {
          const upserts = [
            {
              postId: rec.postId,
              sortKey: rec.prevKey ?? rec.postId,
              movedVersion: ctx.nextVersion,
            },
          ];
          return {
            kind: 'write',
            mutation: { upserts },
            result: { exact: true },
            change: { kind: 'undone', postIds: [rec.postId] },
          };
        }
        const d = await movePlanner(ports, rec.postId, rec.prevAfter ?? null)(ctx);
        if (d.kind === 'skip') return { ...d, result: { exact: false } };
        return {
          ...d,
          result: { exact: false },
          change: { kind: 'undone', postIds: [rec.postId] },
        };
      },
      opts,
    );
  });
}
