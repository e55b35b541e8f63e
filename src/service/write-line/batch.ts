/**
 * What one conditional batch holds (write-line.ts): several writes to one grid planned one after
 * another on one snapshot and committed together. The pure parts, plus the membership cells.
 *
 * - `snapshotAfter`: the state the next write of the batch is planned on, i.e. the state the
 *   batch would leave if it held only the writes planned so far;
 * - `mergeMutations`: the writes' mutations as one batch. A batch's statements share one
 *   timestamp, and cells of equal timestamp are resolved by value, not by statement order, so
 *   every row is written once (the last write of it wins) and every static once (last wins);
 * - `commitsAlone`: writes that never share a batch (a deletion beats a write of the same
 *   timestamp, so a reset followed by a move in one batch would lose the move; membership writes
 *   carry their own side-table record);
 * - `BatchLimits`: the row, byte and keyed-write bounds of one batch;
 * - `membershipStatics`: the record and post count a membership write adds to its batch.
 */
import { countDelta, nextEffectsTs, type Effects } from '../../domain/membership.js';
import { overridesAfter } from '../../domain/override-list.js';
import { RING_SIZE } from '../../domain/request-ring.js';
import { UNDO_RING_VERSIONS } from '../../domain/undo-ring.js';
import type { GridMutation, OverrideWrite, StaticWrites } from '../../store/grid-mutation.js';
import type { GridHead, GridStore, OverridesSnapshot } from '../../store/grid-store.js';

/** True for a mutation that must be the only write of its conditional batch. */
export const commitsAlone = (m: GridMutation): boolean =>
  (m.effects?.length ?? 0) > 0 ||
  (m.deleteRows?.length ?? 0) > 0 ||
  m.clearOverrides === true ||
  m.statics?.effects !== undefined;

/** The snapshot as it reads after `m` committed at `version` (statics `m` sets overwrite). */
export function snapshotAfter(
  s: OverridesSnapshot,
  m: GridMutation,
  version: bigint,
): OverridesSnapshot {
  return { head: headAfter(s.head, m, version), overrides: overridesAfter(s.overrides, m) };
}

/** The head as it reads after `m` committed at `version` (snapshotAfter without the rows). */
export function headAfter(head: GridHead, m: GridMutation, version: bigint): GridHead {
  const st = m.statics ?? {};
  return {
    ...head,
    version,
    ...(st.pins !== undefined ? { pins: [...st.pins] } : {}),
    ...(st.generation !== undefined ? { generation: st.generation } : {}),
    ...(st.postCount !== undefined ? { postCount: st.postCount } : {}),
    ...(st.recentRequests !== undefined ? { recentRequests: st.recentRequests } : {}),
    ...(st.recentMoves !== undefined ? { recentMoves: st.recentMoves } : {}),
    ...(st.homeRegion !== undefined ? { homeRegion: st.homeRegion } : {}),
  };
}

/** Statics of `later` overwrite those of `earlier`; unset fields (undefined) leave them. */
function mergeStatics(earlier: StaticWrites, later: StaticWrites): StaticWrites {
  const out: Record<string, unknown> = { ...earlier };
  for (const [k, v] of Object.entries(later)) if (v !== undefined) out[k] = v;
  return out as StaticWrites;
}

/**
 * One batch that leaves the state the mutations leave applied in order. Only for mutations that
 * may share a batch (no deletions, no membership record).
 */
export function mergeMutations(ms: readonly GridMutation[]): GridMutation {
  if (ms.length === 1) return ms[0]!;
  const rows = new Map<bigint, OverrideWrite>();
  let statics: StaticWrites = {};
  for (const m of ms) {
    if (commitsAlone(m)) throw new Error('a deleting or membership write cannot share a batch');
    for (const u of m.upserts ?? []) {
      const earlier = rows.get(u.postId)?.movedVersion;
      // A relabel leaves moved_version unset: it keeps the one an earlier write of the batch set.
      rows.set(
        u.postId,
        u.movedVersion === undefined && earlier !== undefined ? { ...u, movedVersion: earlier } : u,
      );
    }
    statics = mergeStatics(statics, m.statics ?? {});
  }
  const upserts = [...rows.values()];
  return {
    ...(upserts.length > 0 ? { upserts } : {}),
    ...(Object.keys(statics).length > 0 ? { statics } : {}),
  };
}

export interface BatchBounds {
  readonly maxWrites: number;
  /** Distinct override rows the batch upserts. */
  readonly maxRows: number;
  /** Estimated size of the batch's values (estimateBytes). */
  readonly maxBytes: number;
}

/** Bytes Cassandra counts for one upserted override row (key, two cells, timestamps), rounded up. */
const ROW_BYTES = 64;
/** The version cell and the condition. */
const HEAD_BYTES = 64;

/** A generous estimate of what Cassandra's batch size check counts for this batch. */
export function estimateBytes(m: GridMutation): number {
  const s = m.statics ?? {};
  const ring = (s.recentRequests ?? []).reduce((n, e) => n + 80 + e.outcome.length, 0);
  const undo = 1 + 61 * (s.recentMoves?.length ?? 0); // undo-ring-codec.ts
  const effects = s.effects ? 64 * (1 + s.effects.ops.length) : 0;
  return (
    HEAD_BYTES +
    ROW_BYTES * ((m.upserts?.length ?? 0) + (m.deleteRows?.length ?? 0)) +
    ring +
    undo +
    effects +
    16 * ((s.pins?.length ?? 0) + 3)
  );
}

/**
 * What a batch holds so far. `fits` says whether one more write stays within the bounds; a
 * write that would make some keyed write's ring entry fall out of the batch's own ring (more
 * than RING_SIZE keyed writes) does not fit either, so every key of a batch is still in the ring
 * the batch commits (and a move comes within UNDO_RING_VERSIONS writes of the batch's first, so
 * no move's undo entry pushes out another's). `full`: nothing more fits (the bounds are reached, or a write alone).
 */
export class BatchLimits {
  private rows = new Set<bigint>();
  private merged: GridMutation = {};
  private keyed = 0;
  private count = 0;

  constructor(private readonly bounds: BatchBounds) {}

  get writes(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.bounds.maxWrites || (this.count > 0 && commitsAlone(this.merged));
  }

  fits(m: GridMutation): boolean {
    if (this.count === 0) return true; // a first write commits whatever its size (alone)
    if (this.full || commitsAlone(m)) return false;
    if (m.statics?.recentRequests !== undefined && this.keyed >= RING_SIZE) return false;
    // Likewise the undo ring: every move of a batch keeps its entry in the ring it commits.
    if (m.statics?.recentMoves !== undefined && this.count >= UNDO_RING_VERSIONS) return false;
    const rows = new Set(this.rows);
    for (const u of m.upserts ?? []) rows.add(u.postId);
    if (rows.size > this.bounds.maxRows) return false;
    return estimateBytes(mergeMutations([this.merged, m])) <= this.bounds.maxBytes;
  }

  add(m: GridMutation): void {
    this.merged = this.count === 0 ? m : mergeMutations([this.merged, m]);
    for (const u of m.upserts ?? []) this.rows.add(u.postId);
    this.count += 1;
    if (m.statics?.recentRequests !== undefined) this.keyed += 1;
  }
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
