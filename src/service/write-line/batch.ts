/**
 * What one conditional batch of the write line (commit.ts) adds beside the planner's mutation:
 * - `snapshotAfter`: the state the batch leaves, the grid's LastCommitted record after it;
 * - `membershipStatics`: the record and post count a membership write adds to its batch.
 */
import { countDelta, nextEffectsTs, type Effects } from '../../domain/membership.js';
import { overridesAfter } from '../../domain/override-list.js';
import type { GridMutation, StaticWrites } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';

/** The snapshot as it reads after `m` committed at `version` (statics `m` sets overwrite). */
export function snapshotAfter(
  s: OverridesSnapshot,
  m: GridMutation,
  version: bigint,
): OverridesSnapshot {
  const st = m.statics ?? {};
  return {
    head: {
      ...s.head,
      version,
      ...(st.pins !== undefined ? { pins: [...st.pins] } : {}),
      ...(st.generation !== undefined ? { generation: st.generation } : {}),
      ...(st.postCount !== undefined ? { postCount: st.postCount } : {}),
      ...(st.recentRequests !== undefined ? { recentRequests: st.recentRequests } : {}),
      ...(st.recentMoves !== undefined ? { recentMoves: st.recentMoves } : {}),
      ...(st.homeRegion !== undefined ? { homeRegion: st.homeRegion } : {}),
    },
    overrides: overridesAfter(s.overrides, m),
  };
}

/**
 * The static cells a membership write adds to its batch (domain/membership.ts): `effects`, the
 * record of its side-table ops with a timestamp above the previous record's; `post_count`, the
 * snapshot's count plus the change its ops make (a grid row is only added or dropped by a record
 * whose planner saw it absent or present in this very snapshot, so the delta is exact; a grid
 * that predates the column is counted once), left unset (never a null) when it does not change.
 */
export async function membershipStatics(
  store: Pick<GridStore, 'countGridRows'>,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  mutation: GridMutation,
  version: bigint,
): Promise<{ effects: Effects | undefined; statics: StaticWrites }> {
  const ops = mutation.effects ?? [];
  if (ops.length === 0) return { effects: undefined, statics: {} };
  const ts = nextEffectsTs(snapshot.head.effects, BigInt(Date.now()) * 1000n);
  const effects: Effects = { version, ts, ops };
  const delta = countDelta(ops);
  if (delta === 0n) return { effects, statics: { effects } };
  const base = snapshot.head.postCount ?? (await store.countGridRows(profileId));
  const postCount = base + delta < 0n ? 0n : base + delta;
  return { effects, statics: { effects, postCount } };
}
