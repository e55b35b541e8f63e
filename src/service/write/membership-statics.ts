/**
 * The static cells a membership write adds to its conditional batch (domain/membership.ts):
 *
 * - `effects`: the record of its side-table ops, with a timestamp above the previous record's;
 * - `post_count`: the snapshot's count plus the change its ops make. A grid row is only ever
 *   added or dropped by a record whose planner saw it absent or present in this very snapshot,
 *   so the delta is exact; a grid that predates the column is counted once. Left unset (no
 *   write, never a null) when membership does not change.
 */
import { countDelta, nextEffectsTs, type Effects } from '../../domain/membership.js';
import type { GridMutation, StaticWrites } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';

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
