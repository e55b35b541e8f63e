/**
 * Taking a post off one grid, whatever its state there (on the grid, pinned, overridden,
 * archived, invited): the planner shared by delete, takedown and collaborator removal. Every
 * fact is read after the snapshot (rolled forward by the writer), and the grid rows, archive
 * record and invitation go as membership effects of the same compare-and-set, so a concurrent
 * archive, unarchive or accept on that grid is serialized with it.
 *
 * A deletion fences the post first (`removed_at` on the body): writes that would put it on a
 * grid read the fence after their snapshot, so either they commit before the removal's CAS on
 * that grid (and the removal sees and drops what they added) or they see the fence.
 */
import type { ServiceDeps } from '../deps.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';
import type { GridPlanner } from './grid-writer.js';

export interface RemovalResult {
  /** Something of the post was on this grid and is gone now. */
  readonly removed: boolean;
}

export function removalPlanner(deps: ServiceDeps, postId: bigint): GridPlanner<RemovalResult> {
  return async ({ profileId, snapshot }) => {
    const [onGrid, archived, invited] = await Promise.all([
      deps.store.hasGridRow(profileId, postId),
      deps.archive.get(profileId, postId),
      deps.invites.get(profileId, postId),
    ]);
    const own = snapshot.overrides.some((o) => o.postId === postId);
    const pinned = snapshot.head.pins.includes(postId);
    const effects: MembershipOp[] = [
      ...(onGrid ? [{ op: 'grid_drop' as const, postId }] : []),
      ...(archived ? [{ op: 'archive_drop' as const, postId, seq: archived.seq }] : []),
      ...(invited ? [{ op: 'invite_drop' as const, postId }] : []),
    ];
    if (effects.length === 0 && !own && !pinned)
      return { kind: 'skip', result: { removed: false } };
    return {
      kind: 'write',
      mutation: { effects, ...outOfOrder(snapshot, postId) },
      result: { removed: true },
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
