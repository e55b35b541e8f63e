/**
 * The move, whole: "put P right after A" (A = the post that should come just before P in display
 * order; null = the top, right after the pins). Design §5.1: naming the neighbour keeps the intent
 * when other devices move posts concurrently; applying it twice gives the same order.
 *
 * `movePost`: the `writes.reorder` switch, the request check, the move rate limit (429 +
 * Retry-After over it; fails open without Redis), then one writeGrid whose planner
 * (`movePlanner`, below) places the post (placement.ts) and records how to undo it in the same
 * batch. Every move can be undone; its `move_id` is the caller's (the HTTP layer derives it from
 * the request, so an idempotent replay hands out the same one) or a fresh UUID.
 *
 * The planner runs inside the write line on the snapshot the compare-and-set is conditioned on,
 * so every check is made against it. The "is P / A on the grid" reads happen after the version
 * read: a delete removes its grid row before bumping the version, so a move that commits at
 * version v cannot have missed a delete that committed before v (no orphan override). Writes:
 * P's key (+ moved_version = the new version) and any relabelled neighbours' keys (no
 * moved_version): non-null upserts only, never a delete. That is the whole tombstone policy of
 * moves. The undo entry (undo.ts) is a static cell in the same batch, built from where P was in
 * the snapshot and the slice the planner already read: no reads of its own in the common case.
 */
import { randomUUID } from 'node:crypto';
import type { MoveRateLimiter } from '../../cache/rate-limit.js';
import { DomainError } from '../../domain/errors.js';
import { entryAboveIn } from '../../domain/keys.js';
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import { pushUndo, type UndoEntry } from '../../domain/undo-ring.js';
import type { OverrideWrite, StaticWrites } from '../../store/grid-mutation.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';
import { UNKNOWN_RELABELS, type MovesStore } from '../../store/moves-store.js';
import type { Flags } from '../flags.js';
import type {
  GridPlanner,
  GridWriter,
  PlanContext,
  WriteOptions,
} from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { placeAfter, readEntryAbove, type PlacePorts } from './placement.js';

/** What the move plans with (also the undo's move back, undo.ts). */
export interface MovePlanPorts extends PlacePorts {
  /** The undo's retention (as long as the move's Idempotency-Key would be remembered). */
  readonly moves: Pick<MovesStore, 'ttlS'>;
}

/** Bound on the capped relabel steps of one move (a whole-grid relabel of 10^5 rows is 391). */
const MAX_RELABEL_STEPS = 1024;

export interface MovePorts extends MovePlanPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly flags: Pick<Flags, 'require'>;
  readonly moveRate?: Pick<MoveRateLimiter, 'consume'> | undefined;
}

export interface MoveOptions extends WriteOptions {
  /** The id the undo record is kept under (default: a fresh UUID). */
  readonly moveId?: string | undefined;
}

export interface MoveOutcome {
  readonly version: bigint;
  readonly generation: bigint;
  /** Rows rewritten besides the moved post (relabels). */
  readonly relabelled: number;
  readonly moveId: string;
}

export function movePost(
  ports: MovePorts,
  profileId: bigint,
  postId: bigint,
  after: bigint | null,
  options: MoveOptions = {},
): Promise<MoveOutcome> {
  return trackOp('move', async () => {
    await ports.flags.require('writes.reorder');
    if (after !== null && after === postId) {
      throw new DomainError('invalid_request', '`after` must differ from `post_id`', {
        field: 'after',
      });
    }
    await ports.moveRate?.consume(profileId);
    const moveId = options.moveId ?? randomUUID();
    const planner = movePlanner(ports, postId, after, moveId);
    const opts = { ...options, op: 'move' } as const;
    let out = await ports.writer.writeGrid(profileId, planner, opts);
    // A relabel larger than MOVE_ROW_CAP is paid off first, one capped step per compare-and-set,
    // each without the request's idempotency ticket (only the move's own write carries it).
    for (let steps = 0; out.result.stepFirst; steps++) {
      if (steps >= MAX_RELABEL_STEPS) {
        throw new DomainError('contention', 'the relabel this move needs did not settle', {
          retry_after_s: 1,
        });
      }
      const step = relabelStepPlanner(ports, postId, after);
      await ports.writer.writeGrid(profileId, step, { op: 'move', scope: options.scope });
      out = await ports.writer.writeGrid(profileId, planner, opts);
    }
    const { version, generation } = out;
    return { version, generation, relabelled: out.result.relabelled, moveId };
  });
}

export interface MoveResult {
  /** Rows written besides the moved post (relabels). */
  readonly relabelled: number;
  /**
   * The placement needs a relabel larger than the row cap: nothing was written; commit one
   * step of it (relabelStepPlanner) and plan the move again.
   */
  readonly stepFirst?: true;
}

/** Plans the move; with `moveId`, each attempt also pushes its undo entry (undoRecorder below). */
export function movePlanner(
  ports: MovePlanPorts,
  postId: bigint,
  after: bigint | null,
  moveId?: string,
): GridPlanner<MoveResult> {
  const undo = moveId === undefined ? undefined : undoRecorder(ports, postId, moveId);
  return async (ctx) => {
    const { profileId, snapshot, nextVersion } = ctx;
    const { head } = snapshot;
    if (head.pins.includes(postId)) {
      throw new DomainError('post_pinned', 'unpin the post before moving it', {
        post_id: postId.toString(),
        grid_version: head.version.toString(),
      });
    }
    const anchor = anchorOf(snapshot, after);
    // One round of reads, issued together: whether P and A are on the grid (one statement), and
    // the slice around the gap (both sides at once). The slice is wasted only when the move is
    // refused.
    const [rows, writes] = await Promise.all([
      ctx.rows.gridRowsAmong(profileId, after === null ? [postId] : [postId, after]),
      placeAfter(ports, ctx.rows, snapshot, profileId, postId, anchor, ports.rowCap),
    ]);
    if (!rows.has(postId)) {
      throw new DomainError('post_not_on_grid', 'the post is not on this grid', {
        post_id: postId.toString(),
      });
    }
    if (after !== null && !rows.has(after)) {
      throw new DomainError('anchor_not_on_grid', '`after` is no longer on this grid; reload', {
        after: after.toString(),
        grid_version: head.version.toString(),
      });
    }
    if (writes.kind === 'relabel_step') {
      return { kind: 'skip', result: { relabelled: 0, stepFirst: true } };
    }
    const upserts: OverrideWrite[] = writes.writes.map(
      (w) =>
        w.postId === postId
          ? { postId: w.postId, sortKey: w.key, movedVersion: nextVersion }
          : { postId: w.postId, sortKey: w.key }, // relabel: moved_version untouched
    );
    const result: MoveResult = { relabelled: writes.relabelled };
    // The change record names the moved post alone (its relabelled neighbours did not move).
    const change = { kind: 'moved', postIds: [postId] } as const;
    if (!undo) return { kind: 'write', mutation: { upserts }, result, change };
    const previous: PreviousPosition = {
      key: snapshot.overrides.find((o) => o.postId === postId)?.key,
      above: entryAboveIn(writes.slice, effectiveEntry(snapshot.overrides, postId)),
    };
    const statics = await undo(ctx, { ...result, previous });
    return { kind: 'write', mutation: { upserts, statics }, result, change };
  };
}

/** Where the moved post was in the snapshot a plan was made from. */
export interface PreviousPosition {
  /** Its override key (undefined: it had none). */
  readonly key: bigint | undefined;
  /** The unpinned entry right above it (null: the top; undefined: outside the slice read). */
  readonly above: GridEntry | null | undefined;
}

/** The undo ring's retention window as of now. */
export const undoBounds = (ports: Pick<MovePlanPorts, 'moves'>) => ({
  now: Date.now(),
  ttlMs: ports.moves.ttlS * 1000,
});

/**
 * Pushes each attempt's undo entry into the ring its batch writes. After a Paxos timeout the
 * position read before it is kept and the exact restore given up (undo.ts has the whole story).
 */
export function undoRecorder(
  ports: Pick<MovePlanPorts, 'reader' | 'moves'>,
  postId: bigint,
  moveId: string,
) {
  let prev: { prevKey: bigint | undefined; prevAfter: bigint | undefined } | undefined;
  return async (
    ctx: PlanContext,
    plan: MoveResult & { readonly previous: PreviousPosition },
  ): Promise<StaticWrites> => {
    const { profileId, snapshot } = ctx;
    if (!prev || !ctx.outcomeUnknown) {
      const above =
        plan.previous.above !== undefined
          ? plan.previous.above
          : await readEntryAbove(ctx.rows, profileId, snapshot, postId); // beyond the slice
      prev = { prevKey: plan.previous.key, prevAfter: above?.postId };
    }
    const b = undoBounds(ports);
    const entry: UndoEntry = {
      moveId: moveId.toLowerCase(),
      postId,
      ...prev,
      version: ctx.nextVersion,
      relabelled: ctx.outcomeUnknown ? UNKNOWN_RELABELS : plan.relabelled,
      at: b.now,
    };
    return { recentMoves: pushUndo(snapshot.head.recentMoves ?? [], entry, b) };
  };
}

/**
 * One step of the relabel a capped move needs (at most MOVE_ROW_CAP rows, keys only: every
 * state in between is a valid order), planned on its own snapshot; a skip when the move fits
 * now (someone else's write opened the gap, or the steps are done).
 */
export function relabelStepPlanner(
  ports: PlacePorts,
  postId: bigint,
  after: bigint | null,
): GridPlanner<{ rows: number }> {
  return async ({ profileId, snapshot, rows }) => {
    const anchor = anchorOf(snapshot, after);
    const placed = await placeAfter(ports, rows, snapshot, profileId, postId, anchor, ports.rowCap);
    if (placed.kind !== 'relabel_step') return { kind: 'skip', result: { rows: 0 } };
    const upserts = placed.writes.map((w) => ({ postId: w.postId, sortKey: w.key }));
    return { kind: 'write', mutation: { upserts }, result: { rows: upserts.length } };
  };
}

/** A pinned anchor means "to the top, right after the pins" (§5.1). */
function anchorOf(snapshot: OverridesSnapshot, after: bigint | null): GridEntry | null {
  return after === null || snapshot.head.pins.includes(after)
    ? null
    : effectiveEntry(snapshot.overrides, after);
}
