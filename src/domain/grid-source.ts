/**
 * The read port (`GridReads`) and what it answers: the page read and the caches read a grid
 * through it, whether the store or the caches in front of it answer.
 */
import type { GridHead, OverrideRow } from './grid-head.js';
import type { GridVersion, MinVersion } from './grid-version.js';
import type { GridEntry, GridPosition } from './merge.js';
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
  /** Told the stamp of each page of time-ordered rows read (grid-head.ts `rowsVerdict`). */
  readonly onStamp?: (stamp: bigint | null) => void;
  /** The caller's statement scope, handed to every statement the rows are read with. */
  readonly scope?: Scope | undefined;
}

/**
 * The one read port of a grid. The Cassandra reader (store/grid-reader.ts) implements it with
 * CQL alone; with Redis, service/wiring.ts builds the same port with bodies from the post cache.
 * The page read (service/read/read-page.ts) reads through it, so it has no cache/no-cache
 * branches; the page cache (cache/grid-cache.ts) sits above the page read, not in this port.
 *
 * `Scope`: the caller's statement scope (store/statement-scope.ts: its request's deadline and
 * trace parent), opaque here and only handed on, so that after a deadline sealed it no further
 * statement of the read is sent. A port typed without one (`never`) is called without it.
 */
export interface GridReads<Scope = never> {
  /**
   * The head to page at, never below `minVersion`: the store reads it at LOCAL_QUORUM and
   * escalates to LOCAL_SERIAL when it is below the floor (read-your-writes).
   */
  head(profileId: bigint, minVersion?: MinVersion, scope?: Scope): Promise<PageHead>;
  /**
   * The grid's head from the store now. Read after a page's time-ordered rows: when it shows the
   * same membership as the page's head (`sameMembership`), the rows were exactly that state's.
   */
  readHead(profileId: bigint, consistency?: ReadConsistency, scope?: Scope): Promise<GridHead>;
  /**
   * Override rows (sorted key DESC, postId DESC) and the head of the state they belong to:
   * `expected`'s when the source holds that state's list (the chronological view, which has
   * none), else the current list with the head read in the same single-partition query (maybe
   * newer).
   */
  overrides(
    profileId: bigint,
    expected?: GridHead,
    scope?: Scope,
  ): Promise<{ readonly head: GridHead; readonly rows: readonly OverrideRow[] }>;
  /**
   * The first `limit` entries in display order: `overrides` merged with the time-ordered rows
   * streamed from Cassandra, `exclude`d posts (the pins) left out.
   */
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: EntriesQuery<Scope>,
  ): Promise<GridEntry[]>;
  /** A reordered copy's entries of exactly `state` (see CopySlice); absent = no copies. */
  readonly copy?: CopySlice<Scope> | undefined;
  /** Bodies of `postIds`; deleted posts are absent. */
  hydrate(postIds: readonly bigint[], scope?: Scope): Promise<Map<bigint, Post>>;
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

/** The head a page is read at. */
export interface PageHead {
  readonly head: GridHead;
}
