/**
 * Moving one post: "put P right after A" (A = the post that should come just before P in
 * display order; null = the top, right after the pins). Design §5.1: naming the neighbour keeps
 * the intent when other devices move posts concurrently; applying it twice gives the same order.
 *
 * The planner runs inside writeGrid, so every check below is made against the snapshot the
 * compare-and-set is conditioned on. In particular the "is P / A on the grid" reads happen after
 * the version read: a delete removes its grid row before bumping the version, so a move that
 * commits at version v cannot have missed a delete that committed before v (no orphan override).
 *
 * Writes: P's key (+ moved_version = the new version) and any relabelled neighbours' keys (no
 * moved_version): non-null upserts only, never a delete. That is the whole tombstone policy of moves.
 *
 * `onPlanned` (the undo record, undo.ts) sees each attempt's plan with where P was before it, as
 * the snapshot and the slice already read it, so it needs no reads of its own in the common case;
 * the static cells it returns (the undo ring) commit in the move's own batch.
 */
import type { ChangeDecl } from '../../domain/change-log.js';
import { DomainError } from '../../domain/errors.js';
import { entryAboveIn, type RelabelPolicy } from '../../domain/keys.js';
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import type { OverrideWrite, StaticWrites } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { GridPlanner, PlanContext } from '../write/grid-writer.js';
import { placeInGap } from '../write/slice-reader.js';

export interface MoveResult {
  /** Rows written besides the moved post (relabels). */
  readonly relabelled: number;
  /**
   * The placement needs a relabel larger than the row cap: nothing was written; commit one
   * step of it (relabelStepPlanner) and plan the move again (move.ts).
   */
  readonly stepFirst?: true;
}

/** Where the moved post was in the snapshot a plan was made from. */
export interface PreviousPosition {
  /** Its override key (undefined: it had none). */
  readonly key: bigint | undefined;
  /** The unpinned entry right above it (null: the top; undefined: outside the slice read). */
  readonly above: GridEntry | null | undefined;
}

/**
 * Runs after an attempt is planned; the static cells it returns ride in the attempt's own
 * conditional batch (the undo ring). Throwing abandons the move.
 */
export type MovePlanHook = (
  ctx: PlanContext,
  plan: MoveResult & { readonly previous: PreviousPosition },
) => Promise<StaticWrites>;

export interface MoveDeps {
  readonly store: GridStore;
  readonly reader: CassandraGridReader;
  readonly nextId: () => bigint;
  readonly policy?: RelabelPolicy;
  /** Rows one move's write may carry (MOVE_ROW_CAP); unset = no cap. */
  readonly rowCap?: number | undefined;
}

/** Validation that needs no read: run before writeGrid so a bad request costs nothing. */
export function assertMoveRequest(postId: bigint, after: bigint | null): void {
  if (after !== null && after === postId) {
    throw new DomainError('invalid_request', '`after` must differ from `post_id`', {
      field: 'after',
    });
  }
}

export function movePlanner(
  deps: MoveDeps,
  postId: bigint,
  after: bigint | null,
  onPlanned?: MovePlanHook,
): GridPlanner<MoveResult> {
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
    // One round of reads, issued together: whether P and A are on the grid (one statement), and the slice
    // around the gap (both sides at once, slice-reader.ts). The slice is wasted only when the
    // move is refused.
    const [rows, writes] = await Promise.all([
      deps.store.gridRowsAmong(profileId, after === null ? [postId] : [postId, after]),
      placeAfter(deps, snapshot, profileId, postId, anchor, deps.rowCap),
    ]);
    const onGrid = rows.has(postId);
    const anchorOnGrid = after === null || rows.has(after);
    if (!onGrid) {
      throw new DomainError('post_not_on_grid', 'the post is not on this grid', {
        post_id: postId.toString(),
      });
    }
    if (!anchorOnGrid) {
      throw new DomainError('anchor_not_on_grid', '`after` is no longer on this grid; reload', {
        after: after!.toString(),
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
    if (onPlanned) {
      const previous: PreviousPosition = {
        key: snapshot.overrides.find((o) => o.postId === postId)?.key,
        above: entryAboveIn(writes.slice, effectiveEntry(snapshot.overrides, postId)),
      };
      const statics = await onPlanned(ctx, { ...result, previous });
      return { kind: 'write', mutation: { upserts, statics }, result, change: moved(postId) };
    }
    return { kind: 'write', mutation: { upserts }, result, change: moved(postId) };
  };
}

/**
 * One step of the relabel a capped move needs (at most MOVE_ROW_CAP rows, keys only: every
 * state in between is a valid order), planned on its own snapshot; a skip when the move fits
 * now (someone else's write opened the gap, or the steps are done).
 */
export function relabelStepPlanner(
  deps: MoveDeps,
  postId: bigint,
  after: bigint | null,
): GridPlanner<{ rows: number }> {
  return async ({ profileId, snapshot }) => {
    const anchor = anchorOf(snapshot, after);
    const placed = await placeAfter(deps, snapshot, profileId, postId, anchor, deps.rowCap);
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

/** Places `postId` right after `anchor` (null = top) in the snapshot's order. */
export function placeAfter(
  deps: MoveDeps,
  snapshot: OverridesSnapshot,
  profileId: bigint,
  postId: bigint,
  anchor: GridEntry | null,
  rowCap?: number,
) {
  return placeInGap(
    deps.reader,
    {
      profileId,
      overrides: snapshot.overrides,
      exclude: new Set([...snapshot.head.pins, postId]),
      anchor,
    },
    [postId],
    deps.nextId(), // a freshly issued ID: keys stay below every ID issued later (§4.3)
    deps.policy,
    rowCap,
  );
}

/** A move's change record: the moved post alone (its relabelled neighbours did not move). */
const moved = (postId: bigint): ChangeDecl => ({ kind: 'moved', postIds: [postId] });
