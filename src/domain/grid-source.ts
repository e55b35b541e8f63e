/**
 * The read port (`GridReads`) and what it answers: the page read and the caches read a grid
 * through it, whether the store or the caches in front of it answer.
 */
import type { GridHead, OverrideRow } from './grid-head.js';
import type { GridVersion } from './grid-version.js';
import type { GridEntry, GridPosition, PagedIds } from './merge.js';
import type { Post } from './post.js';

/**
 * `quorum` = the configured LOCAL_QUORUM read, which overlaps the LOCAL_QUORUM commit of every
 * compare-and-set. `serial` = a LOCAL_SERIAL read: it also finishes a Paxos round that a writer
 * left half-done (for example after a write timeout), so it sees every write that could ever win.
 */
export type ReadConsistency = 'quorum' | 'serial';

export interface EntriesQuery<Scope = never> {
  /** Start strictly after this position (a cursor, or an anchor). */
  readonly after?: GridPosition;
  readonly limit: number;
  /** Excluded from the order: the pins, and for a move also the moved post. */
  readonly exclude?: Iterable<bigint>;
  /** The caller's statement scope, handed to every statement the rows are read with. */
  readonly scope?: Scope | undefined;
}

/** One state of the override partition: its head and its override rows, read together. */
export interface GridState {
  readonly head: GridHead;
  /** Sorted in display order: key DESC, postId DESC. */
  readonly rows: readonly OverrideRow[];
}

/** Which time-ordered rows a page reads: from `from` (inclusive) down, about `limit` of them. */
export interface RowsQuery<Scope = never> {
  readonly from?: bigint | undefined;
  readonly limit: number;
  /** Told the stamp of each page of time-ordered rows read (grid-head.ts `rowsVerdict`). */
  readonly onStamp?: (stamp: bigint | null) => void;
  readonly scope?: Scope | undefined;
}

/**
 * The one read port of a grid. The Cassandra reader (store/grid-reader.ts) implements it with
 * CQL alone; with Redis, service/wiring.ts builds the same port with bodies from the post cache.
 * The page read (service/read/read-page.ts) reads through it, so it has no cache/no-cache
 * branches; the page cache (cache/grid-cache.ts) sits above the page read, not in this port.
 * Its reads are single-partition and independent, so a page sends `state` and `rows` at once.
 *
 * `Scope`: the caller's statement scope (store/statement-scope.ts: its request's deadline and
 * trace parent), opaque here and only handed on, so that after a deadline sealed it no further
 * statement of the read is sent. A port typed without one (`never`) is called without it.
 */
export interface GridReads<Scope = never> {
  /**
   * The head and the override rows of one state (the override partition, at LOCAL_QUORUM),
   * as they are: no roll-forward (the page read decides whether it needs one).
   */
  state(profileId: bigint, scope?: Scope): Promise<GridState>;
  /**
   * The grid's head from the store now, rolled forward. `serial` finishes a Paxos round a
   * writer left half-done (read-your-writes above what LOCAL_QUORUM showed).
   */
  readHead(profileId: bigint, consistency?: ReadConsistency, scope?: Scope): Promise<GridHead>;
  /**
   * The time-ordered post IDs from `from` down, the first Cassandra page asked for at once (so
   * it travels beside `state`), later pages as they are pulled.
   */
  rows(profileId: bigint, query: RowsQuery<Scope>): PagedIds;
  /** Applies the head's recorded membership effects if they are not marked applied yet. */
  rollForward(profileId: bigint, head: GridHead): Promise<boolean>;
  /** Reordered copies (profiles with many overrides); absent = no copies. */
  readonly copy?: CopyReads<Scope> | undefined;
  /** Bodies of `postIds`; deleted posts are absent. */
  hydrate(postIds: readonly bigint[], scope?: Scope): Promise<Map<bigint, Post>>;
}

/** A reordered copy's reads: whether a profile may have one (no I/O), and a slice of it. */
export interface CopyReads<Scope = never> {
  has(profileId: bigint): boolean;
  readonly slice: CopySlice<Scope>;
}

/**
 * Up to `limit` unpinned entries of `state`'s display order strictly after `after`, read from a
 * reordered copy of exactly that state (profiles with many overrides), or undefined when there is
 * none: the caller then merges the overrides with the time-ordered rows.
 */
export type CopySlice<Scope = never> = (
  profileId: bigint,
  state: GridVersion,
  after: GridPosition | undefined,
  limit: number,
  scope?: Scope,
) => Promise<GridEntry[] | undefined>;
