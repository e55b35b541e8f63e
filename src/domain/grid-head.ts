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
  /** Idempotency keys this grid committed recently (request-ring.ts), read with the version. */
  readonly recentRequests?: readonly RingEntry[];
  /** How to undo the grid's recent moves (undo-ring.ts), read with the version. */
  readonly recentMoves?: readonly UndoEntry[];
}

/** An override row: a moved or relabelled post's key. */
export interface OverrideRow {
  readonly postId: bigint;
  readonly key: bigint;
  /** Version of the last user-requested position change (not set by relabels). */
  readonly movedVersion: bigint | undefined;
}
