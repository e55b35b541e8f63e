/**
 * The grid cache's contract: what callers ask (`GridCache`), what they get back, how it is tuned,
 * and the counters tests and benchmarks read. The protocol lives in grid-cache.ts.
 */
import type { CommittedState } from '../domain/committed-state.js';
import type { FirstOrder, Summary } from './codec.js';
import type { GridVersion, MinVersion } from '../domain/grid-version.js';
import type { PendingInvalidationStats } from './pending-invalidations.js';
import type { GridHead } from '../domain/grid-head.js';
import type { GridReads } from '../domain/grid-source.js';
import type { Post as PostBody } from '../domain/post.js';

/** `previous`: a lease waiter whose wait ran out got the state before the last change. */
export type Served = 'cache' | 'fill' | 'direct' | 'previous';

export interface FirstOrderRead extends FirstOrder {
  readonly summary: Summary;
  readonly served: Served;
  /** Bodies the hit path fetched in the same round trip (pins + first entries asked for). */
  readonly bodies?: ReadonlyMap<bigint, PostBody>;
  /**
   * A read from Cassandra whose time-ordered rows the grid's membership changed under: the
   * entries are not exactly this state's and are not served as it; read again at least at this
   * state (service/read/settled-read.ts `readSettled`). Absent on every cache hit: a cached order is
   * exact by construction.
   */
  readonly moved?: GridVersion;
}

export interface ReadFirstOptions {
  readonly minVersion?: MinVersion;
  /** On a hit, also return the bodies of the pins and of this many first entries. */
  readonly prefetchBodies?: number;
}

export interface GridCacheSettings {
  readonly orderTtlS: number;
  readonly summaryTtlS: number;
  readonly leaseMs: number;
  readonly leaseWaitMs: number;
  /**
   * Profiles whose failed invalidation is remembered for repair; beyond that, every summary is
   * swept. Default 10,000 (as CACHE_REPAIR_MAX_PROFILES).
   */
  readonly repairMaxProfiles?: number;
  /** The writer's pre-fill waits for a pause in a profile's commits (write-refill.ts); 0 = none. */
  readonly refillDebounceMs?: number;
  readonly refillMaxDelayMs?: number;
  /** First poll interval of lease waiters (doubling, capped at 100 ms). */
  readonly pollMs?: number;
  /**
   * Test-only seams to inject races: after a filler read the head, and just before it writes.
   * Never set in production wiring.
   */
  readonly hooks?: {
    readonly afterHeadRead?: (profileId: bigint, head: GridHead) => Promise<void>;
    readonly beforePublish?: (profileId: bigint, head: GridHead) => Promise<void>;
  };
}

/** Counters for tests, benchmarks and logs. `fills` = Cassandra reads of a first page. */
export interface GridCacheStats {
  hits: number;
  fills: number;
  directReads: number;
  leaseWaits: number;
  previousServed: number;
  staleSetsRejected: number;
  notCachedVersionMoved: number;
}

export interface GridCache {
  readFirstOrder(profileId: bigint, opts?: ReadFirstOptions): Promise<FirstOrderRead>;
  /** The page read's head port (GridReads.head) answered through `readFirstOrder`. */
  readonly pageHead: GridReads['head'];
  /** Write-path hook, after a successful compare-and-set: store the new order, then invalidate. */
  afterGridWrite(profileId: bigint): Promise<void>;
  /**
   * The writer's hook: invalidate (awaited), then pre-fill the committed state's order from the
   * commit itself, in the background (write-refill.ts).
   */
  afterCommit(e: CommittedState): Promise<void>;
  /** Resolves once the background pre-fills started so far are done. */
  refillsSettled(): Promise<void>;
  /**
   * Invalidation only (summary + lease); idempotent, safe in any order. When Redis does not
   * confirm it, the profile is remembered and repaired before this process reads Redis again.
   */
  invalidate(profileId: bigint): Promise<void>;
  readonly stats: GridCacheStats;
  /** Failed invalidations remembered, repaired, and sweeps after an overflow. */
  readonly repairs: PendingInvalidationStats;
}
