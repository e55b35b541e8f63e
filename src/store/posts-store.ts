/**
 * Post bodies (`posts`). A post's rows in the time-ordered grids (`grid_posts`) are written by
 * the grid's own membership effects (store/membership-store.ts) after its compare-and-set; the
 * only direct grid-row writer left here is `insertPost` with profiles, for seeding and tests.
 *
 * A body is written BEFORE the compare-and-set that puts the post on a grid (a body no grid
 * holds is invisible), and deleted AFTER every grid let it go. In between, a deletion first
 * marks it `removed_at`: a write that would add the post to a grid checks the mark after reading
 * its snapshot, so it cannot race a deletion past it (see service/operations/post-removal.ts).
 *
 * Absent optional fields are bound as `undefined` (unset), never `null`: an INSERT with a null
 * writes a cell tombstone.
 */
import type { Post } from '../domain/post.js';
import type { types } from 'cassandra-driver';
import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

export type PostRecord = Post;

const INSERT_POST =
  'INSERT INTO posts (post_id, author_id, caption, media_url, created_at, collaborators) VALUES (?, ?, ?, ?, ?, ?)';
const INSERT_GRID_ROW = 'INSERT INTO grid_posts (profile_id, post_id, author_id) VALUES (?, ?, ?)';
const DELETE_POST = 'DELETE FROM posts WHERE post_id = ?';
const DELETE_GRID_ROW = 'DELETE FROM grid_posts WHERE profile_id = ? AND post_id = ?';
const POST_COLUMNS =
  'post_id, author_id, caption, media_url, created_at, collaborators, removed_at';
const SELECT_POST = `SELECT ${POST_COLUMNS} FROM posts WHERE post_id = ?`;
const SELECT_POSTS = `SELECT ${POST_COLUMNS} FROM posts WHERE post_id IN ?`;
const MARK_REMOVED = 'UPDATE posts SET removed_at = ? WHERE post_id = ?';
/** Bodies per query when hydrating a page (see getPosts). */
export const POSTS_PER_QUERY = 32;

export class PostsStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private writeOpts(scope: StatementScope | undefined): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, logged: true, scope };
  }

  /**
   * Writes the body and, for seeding and tests only, rows in the grids of `profileIds` directly
   * (the service adds posts to grids through membership effects).
   */
  async insertPost(
    post: PostRecord,
    profileIds: readonly bigint[],
    scope: StatementScope | undefined,
  ): Promise<void> {
    const queries = [
      {
        query: INSERT_POST,
        params: bodyParams(post),
      },
      ...profileIds.map((p) => ({
        query: INSERT_GRID_ROW,
        params: [p, post.postId, post.authorId],
      })),
    ];
    if (queries.length === 1) {
      await this.db.execute(queries[0]!.query, queries[0]!.params, {
        prepare: true,
        consistency: this.consistency.commit,
        scope,
      });
    } else {
      await this.db.batch(queries, this.writeOpts(scope));
    }
  }

  /**
   * Writes the body only if no body has that ID (a lightweight transaction on the post's own
   * partition): two registrations of one platform ID with different bodies cannot both win.
   * Returns whether this call wrote it.
   */
  async insertPostIfAbsent(post: PostRecord, scope: StatementScope | undefined): Promise<boolean> {
    const rs = await this.db.execute(`${INSERT_POST} IF NOT EXISTS`, bodyParams(post), {
      prepare: true,
      consistency: this.consistency.commit,
      serialConsistency: this.consistency.serial,
      scope,
    });
    return rs.first()?.get('[applied]') === true;
  }

  /** Fences the post off every grid before its deletion proceeds (a value, never removed). */
  async markRemoved(
    postId: bigint,
    scope: StatementScope | undefined,
    at = new Date(),
  ): Promise<void> {
    await this.db.execute(MARK_REMOVED, [at, postId], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
      scope,
    });
  }

  /** Removes the body (when `withBody`) and the post's rows in the grids of `profileIds`. */
  async deletePost(
    postId: bigint,
    profileIds: readonly bigint[],
    withBody: boolean,
    scope: StatementScope | undefined,
  ): Promise<void> {
    const queries = [
      ...(withBody ? [{ query: DELETE_POST, params: [postId] }] : []),
      ...profileIds.map((p) => ({ query: DELETE_GRID_ROW, params: [p, postId] })),
    ];
    if (queries.length > 0) await this.db.batch(queries, this.writeOpts(scope));
  }

  private readOpts(scope?: StatementScope): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, scope };
  }

  async getPost(postId: bigint, scope?: StatementScope): Promise<PostRecord | undefined> {
    const row = (await this.db.execute(SELECT_POST, [postId], this.readOpts(scope))).first();
    return row ? postOf(row) : undefined;
  }

  /**
   * Bodies for several posts, in the order asked; missing (deleted) posts are left out.
   *
   * A page's bodies in ONE query (`post_id IN ?`, up to POSTS_PER_QUERY keys, more queries in
   * parallel beyond that), not one query per post: 24 queries per page put 200 concurrent page
   * reads past the driver's 2,048 requests per connection (BusyConnectionError), and measured
   * at 200 concurrent pages the IN read was also the faster one (docs/operating.md, "Driver limits").
   */
  async getPosts(postIds: readonly bigint[], scope?: StatementScope): Promise<PostRecord[]> {
    const unique = [...new Set(postIds)];
    if (unique.length === 0) return [];
    const queries = Math.ceil(unique.length / POSTS_PER_QUERY);
    const size = Math.ceil(unique.length / queries); // even chunks: 40 → 20 + 20, not 32 + 8
    const chunks = Array.from({ length: queries }, (_, i) =>
      unique.slice(i * size, (i + 1) * size),
    );
    const results = await Promise.all(
      chunks.map((ids) => this.db.execute(SELECT_POSTS, [ids], this.readOpts(scope))),
    );
    const byId = new Map<bigint, PostRecord>();
    for (const rs of results) for (const row of rs.rows) byId.set(row.get('post_id'), postOf(row));
    return postIds.flatMap((id) => byId.get(id) ?? []);
  }
}

/** INSERT_POST's values; an empty collaborator list stays unset (an empty list is a null). */
const bodyParams = (post: PostRecord) => [
  post.postId,
  post.authorId,
  post.caption,
  post.mediaUrl,
  post.createdAt,
  post.collaborators.length > 0 ? [...post.collaborators] : undefined,
];

function postOf(row: types.Row): PostRecord {
  return {
    postId: row.get('post_id') as bigint,
    authorId: row.get('author_id') as bigint,
    caption: (row.get('caption') as string | null) ?? undefined,
    mediaUrl: (row.get('media_url') as string | null) ?? undefined,
    createdAt: row.get('created_at') as Date,
    collaborators: (row.get('collaborators') as bigint[] | null) ?? [],
    removedAt: (row.get('removed_at') as Date | null) ?? undefined,
  };
}
