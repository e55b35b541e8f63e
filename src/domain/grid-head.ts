/**
 * The static head of a profile's override partition, one type for the store, the cache and the
 * service: what every read starts from and every write compares against.
 */
import type { GridVersion } from './grid-version.js';
import type { Effects } from './membership.js';
import type { RingEntry } from './request-ring.js';
import type { UndoEntry } from './undo-ring.js';

export interface GridHead extends GridVersion {
  /** Absent version = 0, absent generation = 1. */
  readonly version: bigint;
  readonly generation: bigint;
  readonly pins: readonly bigint[];
  /**
   * Posts on the grid (static `post_count`, exact: kept in the grid's compare-and-set); undefined
   * for a grid that predates the column and has not changed membership since.
   */
  readonly postCount?: bigint | undefined;
  /** The last membership write's recorded effects (membership.ts); undefined = none yet. */
  readonly effects?: Effects | undefined;
  /** Version whose effects are known applied to the side tables (absent = 0). */
  readonly appliedVersion?: bigint;
  /**
   * Version of the last write that changed which posts the grid holds (its `effects` record,
   * 0 = none recorded), read with the version; undefined when not known (a summary cached
   * before it carried this). What `sameMembership` compares.
   */
  readonly membershipVersion?: bigint | undefined;
  /** Idempotency keys this grid committed recently (request-ring.ts), read with the version. */
  readonly recentRequests?: readonly RingEntry[];
  /** How to undo the grid's recent moves (undo-ring.ts), read with the version. */
  readonly recentMoves?: readonly UndoEntry[];
  /**
   * The region that serializes this grid's writes (docs/regions.md "Home regions"), read with
   * the version by the writer's snapshot; undefined = none set (or not read).
   */
  readonly homeRegion?: string;
}

/** An override row: a moved or relabelled post's key. */
export interface OverrideRow {
  readonly postId: bigint;
  readonly key: bigint;
  /** Version of the last user-requested position change (not set by relabels). */
  readonly movedVersion: bigint | undefined;
}

/**
 * Whether `grid_posts` shows the same posts at both heads: same generation and the same last
 * membership write (falling back to the same version when either head does not know it).
 * Membership changes only through a recorded effect, applied after its compare-and-set
 * committed (domain/membership.ts), so rows read after head `a` and before head `b` show
 * exactly `a`'s posts when this holds: a change they could show would be a later membership
 * write, committed, and therefore visible to `b`.
 */
export function sameMembership(a: GridHead, b: GridHead): boolean {
  if (a.generation !== b.generation) return false;
  if (a.membershipVersion === undefined || b.membershipVersion === undefined) {
    return a.version === b.version;
  }
  return a.membershipVersion === b.membershipVersion;
}

/**
 * What the stamps of the grid_posts pages a read merged (the membership record each page shows,
 * null = never stamped: cql/021_grid_posts_stamp.cql) say about its rows against `head`, the
 * state it merged them with: `exact` = they show that state's posts; `newer` = a later record's
 * (read again, at least at `version`); `unknown` = nothing to tell by (no rows read, or a grid not
 * stamped since its last record), so the head is read again after the rows (`sameMembership`).
 */
export type RowsVerdict =
  | { readonly kind: 'exact' }
  | { readonly kind: 'newer'; readonly version: bigint }
  | { readonly kind: 'unknown' };

export function rowsVerdict(stamps: readonly (bigint | null)[], head: GridHead): RowsVerdict {
  const mine = head.membershipVersion;
  if (stamps.length === 0 || mine === undefined) return { kind: 'unknown' };
  let newest: bigint | undefined;
  for (const s of stamps) if (s !== null && (newest === undefined || s > newest)) newest = s;
  if (newest !== undefined && newest > mine) return { kind: 'newer', version: newest };
  if (stamps.every((s) => s === mine)) return { kind: 'exact' };
  // Never stamped and never changed through a record: the rows are as they were written.
  if (mine === 0n && stamps.every((s) => s === null)) return { kind: 'exact' };
  return { kind: 'unknown' };
}
