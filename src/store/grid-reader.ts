/**
 * The Cassandra read path of a grid (the read port `GridReads` in src/domain/grid-source.ts) plus the merged-order reads the page and move code build on.
 *
 * Order of reads matters (design §3.4): the version (head) first, then the override rows, then
 * the time-ordered rows. A head whose membership effects are not yet marked applied (the writer
 * is between its compare-and-set and applying them, or crashed there) is rolled forward before
 * any row is read (domain/membership.ts), so a reader that saw version v and then the rows can
 * only see *more* than v, never an older order under a newer version. Whether they show exactly
 * v's posts, the rows' stamp tells (cql/021_grid_posts_stamp.cql, domain/grid-head.ts
 * `rowsVerdict`); the page read (service/read/read-page.ts) reads again when they do not.
 * Only CQL here: the page cache sits above the page read (service/read/rendered-read.ts).
 * A read for a request names its statement scope in every statement (the roll-forward excepted:
 * finishing another write's effects is nobody's request), so its deadline's seal stops it.
 */
import { minVersionEscalations } from '../obs/metrics.js';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import type {
  CopySlice,
  EntriesQuery,
  GridReads,
  PageHead,
  ReadConsistency,
} from '../domain/grid-source.js';
import { meetsMin, type MinVersion } from '../domain/grid-version.js';
import type { Post } from '../domain/post.js';
import type { GridEntry, GridPosition } from '../domain/merge.js';
import { mergeGrid } from '../domain/merge.js';
import type { Consistency } from './cassandra.js';
import type { CopyHints, DisplayCopyStore } from './display-copy-store.js';
import type { GridStore } from './grid-store.js';
import type { MembershipStore } from './membership-store.js';
import type { PostsStore } from './posts-store.js';
import type { StatementScope } from './statement-scope.js';

export class CassandraGridReader implements GridReads<StatementScope> {
  private copies: { readonly store: DisplayCopyStore; readonly hints: CopyHints } | undefined;

  constructor(
    private readonly store: GridStore,
    private readonly posts: PostsStore,
    private readonly membership: MembershipStore,
    private readonly consistency: Consistency,
    /** Rows per Cassandra page when streaming grid_posts. */
    private readonly pageSize = 200,
  ) {}

  async readHead(
    profileId: bigint,
    consistency: ReadConsistency = 'quorum',
    scope?: StatementScope,
  ): Promise<GridHead> {
    const head = await this.store.readHead(
      profileId,
      consistency === 'serial' ? { consistency: this.consistency.serial, scope } : { scope },
    );
    await this.membership.rollForward(profileId, head);
    return head;
  }

  async readHeadAtLeast(
    profileId: bigint,
    min?: MinVersion,
    scope?: StatementScope,
  ): Promise<GridHead> {
    const head = await this.readHead(profileId, 'quorum', scope);
    if (meetsMin(head, min)) return head;
    minVersionEscalations.inc();
    return this.readHead(profileId, 'serial', scope);
  }

  /** Reordered copies for profiles with many overrides (wiring.ts; none = always merge). */
  attachCopies(store: DisplayCopyStore, hints: CopyHints): void {
    this.copies = { store, hints };
  }

  /** GridReads.copy: only profiles known to have many overrides look for one. */
  readonly copy: CopySlice<StatementScope> = async (profileId, state, after, limit, scope) => {
    const copies = this.copies;
    if (!copies?.hints.has(profileId)) return undefined;
    return copies.store.slice(profileId, state, after, limit, scope);
  };

  // --- GridReads: straight from Cassandra (with Redis, service/wiring.ts adds the post cache)

  async head(
    profileId: bigint,
    minVersion?: MinVersion,
    scope?: StatementScope,
  ): Promise<PageHead> {
    return { head: await this.readHeadAtLeast(profileId, minVersion, scope) };
  }

  overrides(
    profileId: bigint,
    _expected?: GridHead,
    scope?: StatementScope,
  ): Promise<{ head: GridHead; rows: OverrideRow[] }> {
    return this.readOverrides(profileId, scope);
  }

  hydrate(postIds: readonly bigint[], scope?: StatementScope): Promise<Map<bigint, Post>> {
    return this.readPosts(postIds, scope);
  }

  async readOverrides(
    profileId: bigint,
    scope?: StatementScope,
  ): Promise<{ head: GridHead; rows: OverrideRow[] }> {
    const snap = await this.store.readOverrides(profileId, { scope });
    await this.membership.rollForward(profileId, snap.head);
    this.copies?.hints.saw(profileId, snap.overrides.length);
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
    query: EntriesQuery<StatementScope>,
  ): Promise<GridEntry[]> {
    return mergeGrid(overrides, this.chronological(profileId, query), {
      pinned: query.exclude ?? [],
      ...(query.after ? { after: query.after } : {}),
      limit: query.limit,
    });
  }

  /** Time-ordered IDs descending, from the position's key (inclusive: ties are filtered by merge). */
  chronological(
    profileId: bigint,
    query: {
      after?: GridPosition;
      limit?: number;
      onStamp?: (stamp: bigint | null) => void;
      scope?: StatementScope | undefined;
    },
  ) {
    const pageSize = Math.min(Math.max((query.limit ?? this.pageSize) + 1, 32), this.pageSize * 5);
    return this.store.streamChronological(profileId, {
      direction: 'desc',
      ...(query.after ? { from: query.after.key } : {}),
      ...(query.onStamp ? { onStamp: query.onStamp } : {}),
      scope: query.scope,
      pageSize,
    });
  }

  /** Time-ordered IDs ascending from `from` (inclusive), for slices above an anchor. */
  chronologicalUp(profileId: bigint, from: bigint, pageSize = 64) {
    return this.store.streamChronological(profileId, { direction: 'asc', from, pageSize });
  }

  async readPosts(postIds: readonly bigint[], scope?: StatementScope): Promise<Map<bigint, Post>> {
    const found = await this.posts.getPosts(postIds, scope);
    return new Map(found.map((p) => [p.postId, p]));
  }
}
