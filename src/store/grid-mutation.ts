/**
 * What one grid write changes in the override partition, and its translation into the
 * statements of ONE conditional batch (see GridStore.casGrid).
 *
 * Tombstone policy, enforced here:
 * - `upserts` only ever bind non-null values; `movedVersion: undefined` binds *unset*, which
 *   leaves the cell as it was (a relabel must not touch `moved_version`). This is the only
 *   kind of change a move produces, so moves write no tombstones.
 * - `deleteRows` (post deleted, archived, collaborator left) and `clearOverrides` (reset) do write
 *   tombstones; they are rare, never used by moves, and documented in docs/architecture.md.
 * - Static cells (`version`, `generation`, `pins`, `post_count`, `home_region`) are overwritten, never deleted: the version
 *   must never restart from 1 (caches and cursors are keyed by it).
 *
 * All statements of a Cassandra batch share one timestamp, and on equal timestamps a deletion
 * beats a write. So a batch must not both delete and write the same row; `buildCasStatements`
 * rejects such a mutation instead of silently losing the write.
 */
import type { ChangeRecord } from '../domain/change-log.js';
import { encodeEffects, type Effects, type MembershipOp } from '../domain/membership.js';
import type { RingEntry } from '../domain/request-ring.js';
import { bucketsWritten, type UndoEntry } from '../domain/undo-ring.js';
import { changeStatements } from './change-log-codec.js';
import { encodeRing } from './request-ring-codec.js';
import { encodeUndoRing, UNDO_COLUMNS } from './undo-ring-codec.js';

export interface OverrideWrite {
  readonly postId: bigint;
  /** The new effective key. Always a real value: no nulls on this path. */
  readonly sortKey: bigint;
  /** Set for a position change the user asked for (move, unarchive); unset for a relabel. */
  readonly movedVersion?: bigint;
}

/** Static (per-grid) cells to overwrite in the same batch. Add fields here for new statics. */
export interface StaticWrites {
  /**
   * Pinned post IDs in pin order (0–3). Cassandra stores an EMPTY frozen list as null, i.e. a
   * cell tombstone in the static row every read scans, so "no pins" is written as the
   * `NO_PINS` sentinel list instead (post IDs are never 0); reads decode it back to [].
   */
  readonly pins?: readonly bigint[];
  readonly generation?: bigint;
  /** The idempotency request ring (docs/idempotency.md): one frozen cell, overwritten. */
  readonly recentRequests?: readonly RingEntry[];
  /**
   * The undo ring after this write (domain/undo-ring.ts). Only the buckets of the versions the
   * batch commits are written: a move rewrites its own bucket's cell, not the ring.
   */
  readonly recentMoves?: readonly UndoEntry[];
  /**
   * The grid's post count after this write (docs/architecture.md "Post count"). Set only by
   * writes that change membership; unset (no write) otherwise, never null.
   */
  readonly postCount?: bigint;
  /** The membership record of this write (set by GridWriter from `GridMutation.effects`). */
  readonly effects?: Effects;
  /**
   * The change records of the versions this batch commits (domain/change-log.ts), each in its
   * slot of `change_log`; a group's list holds its earlier writes' records too.
   */
  readonly changeLog?: { readonly records: readonly ChangeRecord[]; readonly slots: number };
  /**
   * The grid's home region (docs/regions.md "Home regions"): set by the write that claims it or
   * re-homes the grid, otherwise unset. Never empty, never null (a null write is a tombstone).
   */
  readonly homeRegion?: string;
}

export interface GridMutation {
  readonly upserts?: readonly OverrideWrite[];
  readonly statics?: StaticWrites;
  /** Override rows to delete (NOT for moves). */
  readonly deleteRows?: readonly bigint[];
  /** Range-delete every override row, keeping the statics (reset; NOT for moves). */
  readonly clearOverrides?: boolean;
  /**
   * Changes to the side tables (grid rows, archive, invitations) this write decides. Recorded in
   * the same batch and applied after it commits (domain/membership.ts); never for moves.
   */
  readonly effects?: readonly MembershipOp[];
}

export interface CqlStatement {
  readonly query: string;
  readonly params: unknown[];
}

export const CAS_VERSION =
  'UPDATE grid_overrides SET version = ? WHERE profile_id = ? IF version = ?';
export const UPSERT_OVERRIDE =
  'UPDATE grid_overrides SET sort_key = ?, moved_version = ? WHERE profile_id = ? AND post_id = ?';
const SET_PINS = 'UPDATE grid_overrides SET pins = ? WHERE profile_id = ?';
const SET_GENERATION = 'UPDATE grid_overrides SET generation = ? WHERE profile_id = ?';
const SET_RECENT_REQUESTS = 'UPDATE grid_overrides SET recent_requests = ? WHERE profile_id = ?';
const SET_UNDO_BUCKET = UNDO_COLUMNS.map(
  (c) => `UPDATE grid_overrides SET ${c} = ? WHERE profile_id = ?`,
);
const SET_POST_COUNT = 'UPDATE grid_overrides SET post_count = ? WHERE profile_id = ?';
const SET_HOME_REGION = 'UPDATE grid_overrides SET home_region = ? WHERE profile_id = ?';
const SET_EFFECTS = 'UPDATE grid_overrides SET effects = ? WHERE profile_id = ?';
const DELETE_ROW = 'DELETE FROM grid_overrides WHERE profile_id = ? AND post_id = ?';
const CLEAR_ROWS = 'DELETE FROM grid_overrides WHERE profile_id = ? AND post_id >= ?';
const MIN_BIGINT = -(1n << 63n);

/** The stored form of "no pins" (see StaticWrites.pins): a value, not a tombstone. */
export const NO_PINS: readonly bigint[] = [0n];

/** Stored pins → pin list (drops the sentinel; a missing cell is no pins too). */
export const decodePins = (stored: readonly bigint[] | null | undefined): bigint[] =>
  (stored ?? []).filter((p) => p !== 0n);

/** True when the mutation is what a move may produce: only non-null upserts (and statics). */
export const isTombstoneFree = (m: GridMutation): boolean =>
  !m.clearOverrides && !(m.deleteRows && m.deleteRows.length > 0);

/**
 * The statements of the conditional batch. The first is the compare-and-set on the static
 * version; `expected` 0 (absent) is bound as null, which is a *condition* (`IF version = null`
 * holds while the static cell does not exist), not a write, so it leaves no tombstone.
 */
export function buildCasStatements(
  profileId: bigint,
  expected: bigint,
  next: bigint,
  mutation: GridMutation,
): CqlStatement[] {
  if (next <= expected) throw new Error(`version must grow (${expected} → ${next})`);
  const upserts = mutation.upserts ?? [];
  const deletes = mutation.deleteRows ?? [];
  if (mutation.clearOverrides && upserts.length > 0) {
    throw new Error('a batch cannot clear the overrides and write new ones (same timestamp)');
  }
  const deleted = new Set(deletes);
  const seen = new Set<bigint>();
  for (const u of upserts) {
    if (deleted.has(u.postId)) throw new Error(`post ${u.postId} is both deleted and written`);
    if (seen.has(u.postId)) throw new Error(`post ${u.postId} is written twice in one batch`);
    seen.add(u.postId);
    if (typeof u.sortKey !== 'bigint') throw new Error(`sort key of ${u.postId} must be a bigint`);
  }

  const out: CqlStatement[] = [
    { query: CAS_VERSION, params: [next, profileId, expected === 0n ? null : expected] },
  ];
  const statics = mutation.statics ?? {};
  if (statics.pins !== undefined) {
    const stored = statics.pins.length > 0 ? [...statics.pins] : [...NO_PINS];
    out.push({ query: SET_PINS, params: [stored, profileId] });
  }
  if (statics.generation !== undefined) {
    out.push({ query: SET_GENERATION, params: [statics.generation, profileId] });
  }
  if (statics.recentRequests !== undefined) {
    out.push({
      query: SET_RECENT_REQUESTS,
      params: [encodeRing(statics.recentRequests), profileId],
    });
  }
  if (statics.recentMoves !== undefined) {
    for (const [b, entries] of bucketsWritten(statics.recentMoves, expected, next)) {
      out.push({ query: SET_UNDO_BUCKET[b]!, params: [encodeUndoRing(entries), profileId] });
    }
  }
  if (statics.postCount !== undefined) {
    if (statics.postCount < 0n)
      throw new Error(`post count must not be negative (${statics.postCount})`);
    out.push({ query: SET_POST_COUNT, params: [statics.postCount, profileId] });
  }
  if (statics.effects !== undefined) {
    out.push({ query: SET_EFFECTS, params: [encodeEffects(statics.effects), profileId] });
  }
  if (statics.homeRegion !== undefined) {
    if (typeof statics.homeRegion !== 'string' || statics.homeRegion === '') {
      throw new Error('a home region must be a non-empty name (never null)');
    }
    out.push({ query: SET_HOME_REGION, params: [statics.homeRegion, profileId] });
  }
  if (statics.changeLog !== undefined) {
    const { records, slots } = statics.changeLog;
    out.push(...changeStatements(profileId, records, slots, expected, next));
  }
  if (mutation.clearOverrides) out.push({ query: CLEAR_ROWS, params: [profileId, MIN_BIGINT] });
  for (const postId of deletes) out.push({ query: DELETE_ROW, params: [profileId, postId] });
  for (const u of upserts) {
    // `undefined` = unset: a relabel leaves moved_version as it was. Never null.
    out.push({ query: UPSERT_OVERRIDE, params: [u.sortKey, u.movedVersion, profileId, u.postId] });
  }
  return out;
}
