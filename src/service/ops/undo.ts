/**
 * Undo of a move (design §5.1). Every move (move-post.ts) gets a `move_id` and an undo record: the post's previous override key, the post that was right above it, the
 * version the move commits and how many other rows it rewrote.
 *
 * `undoMove` goes through writeGrid like every write:
 *   - exact: when the grid is still at the version the move committed (nothing else changed it)
 *     and the move rewrote only that row, the previous key is written back as it was (a post that
 *     had no override gets its own ID as key: same position, and no null, so no tombstone);
 *   - otherwise: a move back after the previous anchor ("undo is a move back"), with the move's
 *     usual answers (409 if that anchor left the grid or the post is pinned now).
 *
 * The record costs one plain write per attempt and, normally, no read: the previous key comes
 * from the writer's snapshot and the previous anchor from the slice the move planner read (only a
 * post moved farther than that slice reaches needs one chronological read to find it). It is
 * written complete, from inside the planner, BEFORE the attempt's compare-and-set:
 *   - a move whose response was lost in a crash (an Idempotency-Key replay hands out the same
 *     move_id) finds its record, and even the exact restore, since nothing is left to fill in;
 *   - the version in it is that attempt's `nextVersion`. A lost CAS re-plans and rewrites the
 *     record, so the record a client can get a move_id for is always the one written just before
 *     the CAS that applied. A move that fails altogether (503, 409) hands out no move_id, and
 *     whatever its attempts wrote expires, as before;
 *   - after a Paxos timeout an earlier attempt may be the one that committed, and the version a
 *     later attempt writes may then name another writer's commit (that attempt planned v+2, lost
 *     the CAS to it, and the move gave up; an Idempotency-Key replay still hands out the move_id).
 *     So from then on the record keeps the position read before the timeout and gives up the
 *     exact restore (`UNKNOWN_RELABELS`): undo moves back by anchor.
 */
import type { ServiceDeps } from '../deps.js';
import { DomainError } from '../../domain/errors.js';
import { UNKNOWN_RELABELS } from '../../store/moves-store.js';
import type { WriteOptions } from '../write/grid-writer.js';
import { movePlanner, type MovePlanHook } from './move-planner.js';
import { readEntryAbove } from '../write/slice-reader.js';

/** Writes the undo record from each attempt's plan (see the header for why before the CAS). */
export function undoRecorder(deps: ServiceDeps, postId: bigint, moveId: string): MovePlanHook {
  let prev: { prevKey: bigint | undefined; prevAfter: bigint | undefined } | undefined;
  return async (ctx, plan) => {
    const { profileId, snapshot } = ctx;
    if (!prev || !ctx.outcomeUnknown) {
      const above =
        plan.previous.above !== undefined
          ? plan.previous.above
          : await readEntryAbove(deps.reader, profileId, snapshot, postId); // moved beyond the slice
      prev = { prevKey: plan.previous.key, prevAfter: above?.postId };
    }
    const put = deps.moves.put({
      profileId,
      moveId,
      postId,
      ...prev,
      version: ctx.nextVersion,
      relabelled: ctx.outcomeUnknown ? UNKNOWN_RELABELS : plan.relabelled,
    });
    // Written before the batch all the same; the writer waits for it (group commit).
    if (ctx.beforeCommit) ctx.beforeCommit(put);
    else await put;
  };
}

export async function undoMove(
  deps: ServiceDeps,
  profileId: bigint,
  moveId: string,
  options: WriteOptions = {},
) {
  const rec = await deps.moves.get(profileId, moveId);
  if (!rec)
    throw new DomainError('post_not_found', 'no such move (or its undo expired)', {
      move_id: moveId,
    });
  const back = movePlanner(deps, rec.postId, rec.prevAfter ?? null);
  return deps.writer.writeGrid<{ exact: boolean }>(
    profileId,
    async (ctx) => {
      const { head } = ctx.snapshot;
      if (head.version === rec.version && rec.relabelled === 0 && !head.pins.includes(rec.postId)) {
        const upserts = [
          { postId: rec.postId, sortKey: rec.prevKey ?? rec.postId, movedVersion: ctx.nextVersion },
        ];
        return { kind: 'write', mutation: { upserts }, result: { exact: true } };
      }
      const d = await back(ctx);
      return { ...d, result: { exact: false } };
    },
    options,
  );
}
