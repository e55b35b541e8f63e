/**
 * Taking a post off one grid, whatever its state there (on the grid, pinned, overridden,
 * archived): the planner shared by delete, takedown and collaborator removal. Every fact is read
 * after the snapshot (rolled forward by the writer), and the grid rows and archive record go as
 * membership effects of the same compare-and-set, so a concurrent archive, unarchive or accept
 * on that grid is serialized with it. A pending invitation is not part of the grid: the caller
 * withdraws it first (invitations.ts), and asks for `bump` when it had to cancel one
 * an accept had claimed.
 *
 * A deletion fences the post first (`removed_at` on the body): writes that would put it on a
 * grid read the fence after their snapshot, so either they commit before the removal's CAS on
 * that grid (and the removal sees and drops what they added) or they see the fence.
 */
import type { ChangeKind } from '../../domain/change-log.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { ArchiveStore } from '../../store/archive-store.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { GridPlanner } from '../write-line/write-line.js';

/** What the removal reads after the snapshot. */
export interface RemovalPorts {
  readonly store: Pick<GridStore, 'hasGridRow'>;
  readonly archive: Pick<ArchiveStore, 'get'>;
}

export interface RemovalResult {
  /** Something of the post was on this grid and is gone now. */
  readonly removed: boolean;
}

export interface RemovalOptions {
  /**
   * Commit a version even with nothing to remove: an accept that claimed the invitation may be
   * between reading it and its compare-and-set, and must find the version moved.
   */
  readonly bump?: boolean;
  /** The change record's kind (default `deleted`): takedown, a collaborator's leave, … */
  readonly change?: ChangeKind;
}

export function removalPlanner(
  ports: RemovalPorts,
  postId: bigint,
  options: RemovalOptions = {},
): GridPlanner<RemovalResult> {
  return async ({ profileId, snapshot }) => {
    const [onGrid, archived] = await Promise.all([
      ports.store.hasGridRow(profileId, postId),
      ports.archive.get(profileId, postId),
    ]);
    const own = snapshot.overrides.some((o) => o.postId === postId);
    const pinned = snapshot.head.pins.includes(postId);
    const effects: MembershipOp[] = [
      ...(onGrid ? [{ op: 'grid_drop' as const, postId }] : []),
      ...(archived ? [{ op: 'archive_drop' as const, postId, seq: archived.seq }] : []),
    ];
    const change = { kind: options.change ?? 'deleted', postIds: [postId] };
    if (effects.length === 0 && !own && !pinned) {
      if (options.bump) {
        return { kind: 'write', mutation: {}, result: { removed: false }, change };
      }
      return { kind: 'skip', result: { removed: false } };
    }
    return {
      kind: 'write',
      mutation: { effects, ...outOfOrder(snapshot, postId) },
      result: { removed: true },
      change,
    };
  };
}

/** The mutation that takes a post out of the grid's order: its override row and its pin. */
export function outOfOrder(snapshot: OverridesSnapshot, postId: bigint): GridMutation {
  const own = snapshot.overrides.some((o) => o.postId === postId);
  const pinned = snapshot.head.pins.includes(postId);
  return {
    ...(own ? { deleteRows: [postId] } : {}),
    ...(pinned ? { statics: { pins: snapshot.head.pins.filter((p) => p !== postId) } } : {}),
  };
}
