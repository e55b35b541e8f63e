/**
 * The read ports. `GridSource` is what reads a grid from the store (the Cassandra reader in
 * store/grid-reader.ts implements it; the cache fills from it). `PageSource` is what the page
 * read (service/read-page.ts) sees: the same reads, plus what a cache may already hold. The
 * Cassandra reader implements it directly; with Redis, service/wiring.ts builds it from the caches
 * (cache/grid-cache.ts `pageHead`, the override-list and post caches) and that reader.
 * The page read therefore has one source and no cache/no-cache branches.
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

export interface EntriesQuery {
  /** Start strictly after this position (a cursor, or an anchor). */
  readonly after?: GridPosition;
  readonly limit: number;
  /** Excluded from the order: the pins, and for a move also the moved post. */
  readonly exclude?: Iterable<bigint>;
  /** Told the stamp of each page of time-ordered rows read (grid-head.ts `rowsVerdict`). */
  readonly onStamp?: (stamp: bigint | null) => void;
}

export interface GridSource {
  readHead(profileId: bigint, consistency?: ReadConsistency): Promise<GridHead>;
  /**
   * The head at LOCAL_QUORUM, escalated to LOCAL_SERIAL when it is below the caller's floor
   * (read-your-writes): the one place that rule lives.
   */
  readHeadAtLeast(profileId: bigint, min?: MinVersion): Promise<GridHead>;
  /**
   * The first `limit` entries in display order: `overrides` (sorted key DESC, postId DESC) merged
   * with the time-ordered rows streamed from Cassandra, `exclude`d posts (the pins) left out.
   */
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: EntriesQuery,
  ): Promise<GridEntry[]>;
  /**
   * Every override row of the profile, sorted by (key DESC, postId DESC), together with the head
   * read in the same single-partition query (so the list belongs to exactly that version).
   */
  readOverrides(profileId: bigint): Promise<{ head: GridHead; rows: OverrideRow[] }>;
  /** Bodies of existing posts; deleted posts are simply absent from the map. */
  readPosts(postIds: readonly bigint[]): Promise<Map<bigint, Post>>;
  /** A reordered copy's entries of exactly `state` (see CopySlice); absent = no copies. */
  readonly copy?: CopySlice | undefined;
  /** A cache served a profile's override list of `count` rows (how copies learn large grids). */
  noteOverrides?(profileId: bigint, count: number): void;
}

/** What the first-page cache fills from: the store's reads plus the settled read over them. */
export interface SettledSource extends GridSource {
  /**
   * The first `limit` entries of the state whose head `first` the caller read, and whether they
   * are that state's (design §3.4: the version, the rows, the version again): a reordered copy,
   * or the override list merged with the time-ordered rows (service/read/settled-read.ts).
   */
  readSettled(profileId: bigint, first: GridHead, limit: number): Promise<SettledRows>;
}

/** Where a cache reads override lists (cache/override-cache.ts): `expected`'s when it holds it. */
export interface OverrideLists {
  read(
    profileId: bigint,
    expected?: GridHead,
  ): Promise<{ readonly head: GridHead; readonly rows: readonly OverrideRow[] }>;
}

/**
 * Entries of `head`'s state (the state their override list belongs to). `moved`: the grid's
 * posts changed under the rows, so they are not that state's (never cached, never served as it).
 */
export interface SettledRows {
  readonly head: GridHead;
  readonly rows: readonly GridEntry[];
  readonly moved?: GridVersion | undefined;
}

/**
 * Up to `limit` unpinned entries of `state`'s display order strictly after `after`, read from a
 * reordered copy of exactly that state (profiles with many overrides), or undefined when there is
 * none: the caller then merges the overrides with the time-ordered rows.
 */
export type CopySlice = (
  profileId: bigint,
  state: GridVersion,
  after: GridPosition | undefined,
  limit: number,
) => Promise<GridEntry[] | undefined>;

/** The main order's first entries of exactly one state, as a cache holds them. */
export interface CachedOrder {
  readonly version: bigint;
  readonly generation: bigint;
  readonly entries: readonly GridEntry[];
  /** The grid has no entries beyond these. */
  readonly complete: boolean;
}

export interface PageHead {
  readonly head: GridHead;
  /** The cached first entries of `head`'s state, when a cache holds them. */
  readonly order?: CachedOrder | undefined;
  /** `order` came from the cache (not filled by this read): what cache sampling checks. */
  readonly cached?: boolean | undefined;
  /** Bodies fetched along with the head (a cache hit), by post ID. */
  readonly bodies?: ReadonlyMap<bigint, Post> | undefined;
  /**
   * The source read the first entries but the grid's posts changed under that read: they are
   * not `head`'s, and the page is read again at least at this state.
   */
  readonly moved?: GridVersion | undefined;
  /** How a cache answered the head: `hit` = from Redis; absent = no cache in front. */
  readonly cache?: 'hit' | 'miss' | undefined;
}

export interface PageSource {
  /** The head to page at, never below `minVersion`; a cache may prefetch `prefetch` bodies. */
  head(profileId: bigint, minVersion?: MinVersion, prefetch?: number): Promise<PageHead>;
  /**
   * Override rows and the head of the state they belong to: `head`'s when the source holds that
   * state's list, else (or without `head`) the current list with the head read in the same
   * query (maybe newer).
   */
  overrides(
    profileId: bigint,
    head?: GridHead,
  ): Promise<{ readonly head: GridHead; readonly rows: readonly OverrideRow[] }>;
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: EntriesQuery,
  ): Promise<GridEntry[]>;
  /**
   * The grid's head from the store, read after a page's time-ordered rows: when it shows the same
   * membership as the page's head (`sameMembership`), the rows were exactly that state's.
   */
  current(profileId: bigint): Promise<GridHead>;
  /** As GridSource.copy. */
  readonly copy?: CopySlice | undefined;
  /** Bodies of `postIds` (those in `known` are not read again); deleted posts are absent. */
  hydrate(
    postIds: readonly bigint[],
    known?: ReadonlyMap<bigint, Post>,
  ): Promise<Map<bigint, Post>>;
}
