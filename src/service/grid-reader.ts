/**
 * The Cassandra read path of a grid, as the cache layer sees it (`GridSource` in
 * src/cache/source.ts) plus the merged-order reads the page and move code build on.
 *
 * Order of reads matters (design §3.4): the version (head) first, then the override rows, then
 * the time-ordered rows. A head whose membership effects are not yet marked applied (the writer
 * is between its compare-and-set and applying them, or crashed there) is rolled forward before
 * any row is read (domain/membership.ts), so a reader that saw version v and then the rows can
 * only see *more* than v, never an older order under a newer version.
 */
import type { GridHead, GridSource, OverrideRow, ReadConsistency } from '../cache/source.js';
import type { GridEntry, GridPosition } from '../domain/merge.js';
import { mergeGridAsync, streamMergedGrid } from '../domain/merge.js';
import type { Consistency } from '../store/cassandra.js';
import type { GridStore } from '../store/grid-store.js';
import type { MembershipStore } from '../store/membership-store.js';
import { rollForward } from './grid-writer.js';
import type { PostRecord, PostsStore } from '../store/posts-store.js';

export interface EntriesQuery {
  /** Start strictly after this position (a cursor, or an anchor). */
  readonly after?: GridPosition;
  readonly limit: number;
  /** Excluded from the order: the pins, and for a move also the moved post. */
  readonly exclude?: Iterable<bigint>;
}

export class CassandraGridReader implements GridSource {
  constructor(
    private readonly store: GridStore,
    private readonly posts: PostsStore,
    private readonly membership: MembershipStore,
    private readonly consistency: Consistency,
    /** Rows per Cassandra page when streaming grid_posts. */
    private readonly pageSize = 200,
  ) {}

  async readHead(profileId: bigint, consistency: ReadConsistency = 'quorum'): Promise<GridHead> {
    const head = await this.store.readHead(
      profileId,
      consistency === 'serial' ? { consistency: this.consistency.serial } : {},
    );
    await rollForward(this.membership, profileId, head);
    return head;
  }

  async readOverrides(profileId: bigint): Promise<{ head: GridHead; rows: OverrideRow[] }> {
    const snap = await this.store.readOverrides(profileId);
    await rollForward(this.membership, profileId, snap.head);
    return { head: snap.head, rows: [...snap.overrides] };
  }

  /** The first `n` unpinned entries in display order (pins from `head`, read before). */
  async readFirstEntries(profileId: bigint, head: GridHead, n: number): Promise<GridEntry[]> {
    const { rows } = await this.readOverrides(profileId);
    return this.entries(profileId, rows, { limit: n, exclude: head.pins });
  }

  /**
   * Entries in display order (key DESC, postId DESC) merged from `overrides` (sorted that way)
   * and the streamed time-ordered rows; the stream starts at the position's key, so a later page
   * never re-reads the rows above it.
   */
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: EntriesQuery,
  ): Promise<GridEntry[]> {
    return mergeGridAsync(overrides, this.chronological(profileId, query), {
      pinned: query.exclude ?? [],
      ...(query.after ? { after: query.after } : {}),
      limit: query.limit,
    });
  }

  /** Streaming form of `entries` for callers that stop on their own (no limit needed). */
  streamEntries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: Omit<EntriesQuery, 'limit'> & { limit?: number },
  ): AsyncGenerator<GridEntry, void, undefined> {
    return streamMergedGrid(overrides, this.chronological(profileId, query), {
      pinned: query.exclude ?? [],
      ...(query.after ? { after: query.after } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
    });
  }

  /** Time-ordered IDs descending, from the position's key (inclusive: ties are filtered by merge). */
  chronological(profileId: bigint, query: { after?: GridPosition; limit?: number }) {
    const pageSize = Math.min(Math.max((query.limit ?? this.pageSize) + 1, 32), this.pageSize * 5);
    return this.store.streamChronological(profileId, {
      direction: 'desc',
      ...(query.after ? { from: query.after.key } : {}),
      pageSize,
    });
  }

  /** Time-ordered IDs ascending from `from` (inclusive), for slices above an anchor. */
  chronologicalUp(profileId: bigint, from: bigint, pageSize = 64) {
    return this.store.streamChronological(profileId, { direction: 'asc', from, pageSize });
  }

  async readPosts(postIds: readonly bigint[]): Promise<Map<bigint, PostRecord>> {
    const found = await this.posts.getPosts(postIds);
    return new Map(found.map((p) => [p.postId, p]));
  }

  readPost(postId: bigint): Promise<PostRecord | undefined> {
    return this.posts.getPost(postId);
  }
}
