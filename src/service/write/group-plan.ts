/**
 * The pure parts of a group commit (docs/write-paths.md "Group commit"): several queued writes
 * to one grid planned one after another on one snapshot and committed in ONE conditional batch.
 *
 * - `snapshotAfter`: the virtual snapshot the next write of the group is planned on, i.e. the
 *   state the batch would leave if it held only the writes planned so far;
 * - `mergeMutations`: the group's mutations as one batch. A batch's statements share one
 *   timestamp, and cells of equal timestamp are resolved by value, not by statement order, so
 *   every row is written once (the last write of it wins) and every static once (last wins);
 * - `commitsAlone`: writes that never share a batch (a deletion beats a write of the same
 *   timestamp, so a reset followed by a move in one batch would lose the move; membership writes
 *   carry their own side-table record);
 * - `GroupTally`: the row, byte and keyed-write bounds of one group.
 */
import { overridesAfter } from '../../domain/override-list.js';
import { RING_SIZE } from '../../domain/request-ring.js';
import { UNDO_RING_VERSIONS } from '../../domain/undo-ring.js';
import type { GridMutation, OverrideWrite, StaticWrites } from '../../store/grid-mutation.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';

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
    },
    overrides: overridesAfter(s.overrides, m),
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
      // A relabel leaves moved_version unset: it keeps the one an earlier write of the group set.
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

export interface GroupBounds {
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
 * What a group holds so far. `fits` says whether one more write stays within the bounds; a
 * write that would make some keyed write's ring entry fall out of the batch's own ring (more
 * than RING_SIZE keyed writes) does not fit either, so every key of a group is still in the ring
 * the group commits (and a move comes within UNDO_RING_VERSIONS writes of the group's first, so
 * no move's undo entry pushes out another's). `full`: nothing more fits (the bounds are reached, or a write alone).
 */
export class GroupTally {
  private rows = new Set<bigint>();
  private merged: GridMutation = {};
  private keyed = 0;
  private count = 0;

  constructor(private readonly bounds: GroupBounds) {}

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
    // Likewise the undo ring: every move of a group keeps its entry in the ring it commits.
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
