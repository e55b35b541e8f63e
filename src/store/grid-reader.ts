/**
 * The Cassandra read path of a grid (the read port `GridReads` in src/domain/grid-source.ts) plus the merged-order reads the page and move code build on.
 *
 * A page (service/read/read-page.ts) sends its two single-partition reads at once: the state
 * (head + override rows, `state`) and the top of the time-ordered rows (`rows`, first page asked
 * for at once); the rows' stamp says which membership they show (cql/021_grid_posts_stamp.cql,
 * domain/grid-head.ts `rowsVerdict`), and the page read reads again when it is not the state's.
 * The writer's own reads (`readOverrides`, `readHead`) keep the older order: the head first, a
 * head whose membership effects are not marked applied rolled forward (domain/membership.ts),
 * then the rows, which can then only show *more* than that head, never less.
 * Only CQL here: the page cache sits above the page read (service/read/rendered-read.ts).
 * A read for a request names its statement scope in every statement (the roll-forward excepted:
 * finishing another write's effects is nobody's request), so its deadline's seal stops it.
 */
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import type {
  CopyReads,
  EntriesQuery,
  GridReads,
  GridState,
  ReadConsistency,
  RowsQuery,
} from '../domain/grid-source.js';
import type { Post } from '../domain/post.js';
import type { GridEntry, GridPosition } from '../domain/merge.js';
import { mergeGrid, pagedIds, type PagedIds } from '../domain/merge.js';
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

  /** Reordered copies for profiles with many overrides (wiring.ts; none = always merge). */
  attachCopies(store: DisplayCopyStore, hints: CopyHints): void {
    this.copies = { store, hints };
  }

  /** GridReads.copy: only profiles known to have many overrides look for one. */
  readonly copy: CopyReads<StatementScope> = {
    has: (profileId) => this.copies?.hints.has(profileId) ?? false,
    slice: async (profileId, state, after, limit, scope) => {
      const copies = this.copies;
      if (!copies?.hints.has(profileId)) return undefined;
      return copies.store.slice(profileId, state, after, limit, scope);
    },
  };

  // --- GridReads: straight from Cassandra (with Redis, service/wiring.ts adds the post cache)

  /**
   * GridReads.state: the head without the writer's rings (a page needs none of them) and the
   * override rows, of one state (grid-store.ts `readState`).
   */
  async state(profileId: bigint, scope?: StatementScope): Promise<GridState> {
    const snap = await this.store.readState(profileId, { scope });
    this.copies?.hints.saw(profileId, snap.overrides.length);
    return { head: snap.head, rows: snap.overrides };
  }

  /** GridReads.rows: `chronological`, its first page asked for now. */
  rows(profileId: bigint, query: RowsQuery<StatementScope>): PagedIds {
    const { from, ...rest } = query;
    return eager(
      this.chronological(profileId, {
        ...rest,
        ...(from === undefined ? {} : { after: { key: from, postId: from } }),
      }),
    );
  }

  rollForward(profileId: bigint, head: GridHead): Promise<boolean> {
    return this.membership.rollForward(profileId, head);
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

/**
 * `paged` with its first page asked for now: the page read sends it beside the state. Read at
 * most once; a prefetch nobody reads (the cursor's position moved) must not reject unhandled.
 */
function eager(paged: PagedIds): PagedIds {
  const it = paged.pages()[Symbol.asyncIterator]();
  const first = it.next();
  first.catch(() => undefined);
  let taken = false;
  return pagedIds(async function* () {
    if (taken) throw new Error('an eager row stream is read once');
    taken = true;
    for (let r = await first; !r.done; r = await it.next()) yield r.value;
  });
}
