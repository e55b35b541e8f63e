/**
 * The port the load tester drives: one implementation per grid design (regrid in-process, regrid
 * over HTTP, the naive delete + insert table, the seed's design on PostgreSQL). The runner,
 * checker and report only see this, so every design gets exactly the same workload and checks.
 */
export type DesignName = 'regrid' | 'naive' | 'postgres';

/** A measured floor: bare conditional writes per second, and how many did not apply or failed. */
export interface RawCeilingFigures {
  readonly batches: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Batches the store refused (should be 0: nobody else writes these partitions). */
  readonly notApplied: number;
  /** Batches that failed (timeouts, a lost node); not counted in `perSecond`. */
  readonly failed: number;
}

/** The design's store did not answer: the session skips it with this message. */
export class DesignUnavailable extends Error {
  override readonly name = 'DesignUnavailable';
}

export interface MoveOutcome {
  /** Grid version the move committed at; null for designs without one. */
  readonly version: bigint | null;
  /** Rows written by the move across the design's tables; null when the transport hides it. */
  readonly rowsWritten: number | null;
  /** Other posts whose keys the move rewrote (a relabel); null when unknown. */
  readonly relabelled: number | null;
}

export interface ReadCounts {
  readonly liveRows: number;
  readonly tombstoneCells: number;
}

/**
 * How a failed move counts for the model: `rejected` definitely did not change the grid (a 4xx,
 * contention after all CAS attempts); `uncertain` may have (timeouts, dropped connections).
 */
export type FailureKind = 'rejected' | 'uncertain';

/** Conditional batches (CAS attempts) so far, and how they are known; null count: not known. */
export interface CasAttempts {
  readonly count: number | null;
  /** Where the count comes from, or why there is none (reported next to the figure). */
  readonly source: string;
}

/** A bare-write floor of the design's own store (raw-ceiling.ts for Cassandra). */
export interface CeilingRequest {
  readonly batches: number;
  readonly concurrency: number;
  /** One partition per writer, or every writer on one partition. */
  readonly partitions: 'distinct' | 'one';
  readonly posts: number;
  readonly onBatch?: () => void;
}

/**
 * The writes besides moves that the mixed workload (mix.ts) issues, each answering with the grid
 * version it committed at (or found, when it changed nothing). regrid only: the peers have none.
 */
export interface MixedOps {
  create(profileId: bigint): Promise<{ readonly postId: bigint; readonly version: bigint }>;
  remove(profileId: bigint, postId: bigint): Promise<bigint>;
  archive(profileId: bigint, postId: bigint): Promise<bigint>;
  unarchive(profileId: bigint, postId: bigint): Promise<bigint>;
  setPins(profileId: bigint, pins: readonly bigint[]): Promise<bigint>;
  /** The order resource: pins and the main order, with the entity tag a batch order sends. */
  readOrder(
    profileId: bigint,
  ): Promise<{ readonly pins: bigint[]; readonly main: bigint[]; readonly etag: string }>;
  /** A batch order of the whole main order, If-Match `etag`. */
  patchOrder(profileId: bigint, etag: string, order: readonly bigint[]): Promise<bigint>;
  /** A short stable name of a failure for the report (`post_not_on_grid`, `http_412`). */
  failureCode(err: unknown): string;
}

export interface GridDesign {
  readonly name: DesignName;
  /** What drives it, for the report: 'direct', 'http' or 'direct (naive table)'. */
  readonly transport: string;
  /** Tables holding this design's grid partitions (tombstone accounting reads these). */
  readonly tables: readonly string[];
  /** The mixed workload's writes (--mix); absent: the design only moves. */
  readonly mixed?: MixedOps;
  /** Creates `posts` posts on a fresh grid; returns their IDs oldest first. */
  createGrid(profileId: bigint, posts: number): Promise<bigint[]>;
  /** Moves `postId` right after `after` (null: to the top). */
  move(profileId: bigint, postId: bigint, after: bigint | null): Promise<MoveOutcome>;
  /** The first page in display order (what a profile visit reads). */
  readFirstPage(profileId: bigint, limit: number): Promise<bigint[]>;
  /**
   * The same first-page read, traced: Cassandra's count of live rows and tombstone cells it met
   * (summed over every statement the design's read path runs).
   */
  traceFirstPage(profileId: bigint, limit: number): Promise<ReadCounts>;
  /**
   * Live rows and tombstones of the whole grid, for designs whose grids are not Cassandra
   * partitions in `tables` (those are traced by the sampler itself).
   */
  traceWhole?(profileId: bigint): Promise<ReadCounts>;
  /** Store-side table figures after the run (e.g. PostgreSQL's dead tuples), for the report. */
  storeStats?(): Promise<Record<string, Record<string, number>>>;
  /** The whole grid's order, read the way the first page is (timed by the sampler). */
  readOrder(profileId: bigint): Promise<bigint[]>;
  /** The whole grid in display order, duplicates and all (what the checker judges). */
  readAll(profileId: bigint): Promise<bigint[]>;
  classifyFailure(err: unknown): FailureKind;
  /** The grid's current version (designs with versions; read at the end to resolve unknowns). */
  headVersion?(profileId: bigint): Promise<bigint>;
  /** Conditional batches lost so far (each one a retry by the writer); absent when invisible. */
  casRetries?(): number;
  /** Conditional batches sent so far (for CAS attempts per move); absent: no compare-and-set. */
  casAttempts?(): Promise<CasAttempts>;
  /** The failure is a 503 contention answer (every CAS attempt lost). */
  isContention?(err: unknown): boolean;
  /**
   * The floor of a store other than Cassandra (PostgreSQL), measured like raw-ceiling.ts;
   * absent: the design's store is Cassandra and the raw ceiling is measured there.
   */
  storeCeiling?(o: CeilingRequest): Promise<RawCeilingFigures>;
  close(): Promise<void>;
}
