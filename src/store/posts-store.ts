/**
 * Post bodies (`posts`) and a post's membership rows in time-ordered grids (`grid_posts`).
 *
 * A post and its grid rows are written or removed together in one LOGGED batch: the batchlog
 * makes the multi-partition change all-or-nothing (eventually), so a crash never leaves a body
 * without its grid row or the reverse. These writes happen BEFORE the grid's version bump
 * (see docs/architecture.md: the cache must never store an old order under a new version).
 *
 * Absent optional fields are bound as `undefined` (unset), never `null`: an INSERT with a null
 * writes a cell tombstone.
 */
import type { Post } from '../domain/post.js';
import type { QueryOptions, types } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';

export type PostRecord = Post;

const INSERT_POST =
  'INSERT INTO posts (post_id, author_id, caption, media_url, created_at, collaborators) VALUES (?, ?, ?, ?, ?, ?)';
const INSERT_GRID_ROW = 'INSERT INTO grid_posts (profile_id, post_id, author_id) VALUES (?, ?, ?)';
const DELETE_POST = 'DELETE FROM posts WHERE post_id = ?';
const DELETE_GRID_ROW = 'DELETE FROM grid_posts WHERE profile_id = ? AND post_id = ?';
const SELECT_POST =
  'SELECT post_id, author_id, caption, media_url, created_at, collaborators FROM posts WHERE post_id = ?';

export class PostsStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private writeOpts(): QueryOptions {
    return { prepare: true, consistency: this.consistency.commit, logged: true };
  }

  /** Writes the body and its rows in the grids of `profileIds` (author first, then collaborators). */
  async insertPost(post: PostRecord, profileIds: readonly bigint[]): Promise<void> {
    const queries = [
      {
        query: INSERT_POST,
        params: [
          post.postId,
          post.authorId,
          post.caption,
          post.mediaUrl,
          post.createdAt,
          post.collaborators.length > 0 ? [...post.collaborators] : undefined,
        ],
      },
      ...profileIds.map((p) => ({
        query: INSERT_GRID_ROW,
        params: [p, post.postId, post.authorId],
      })),
    ];
    await this.db.batch(queries, this.writeOpts());
  }

  /** Removes the body (when `withBody`) and the post's rows in the grids of `profileIds`. */
  async deletePost(postId: bigint, profileIds: readonly bigint[], withBody = true): Promise<void> {
    const queries = [
      ...(withBody ? [{ query: DELETE_POST, params: [postId] }] : []),
      ...profileIds.map((p) => ({ query: DELETE_GRID_ROW, params: [p, postId] })),
    ];
    if (queries.length > 0) await this.db.batch(queries, this.writeOpts());
  }

  /** Adds existing posts to one grid (collaborators, unarchive, seeding). */
  async insertGridRows(
    profileId: bigint,
    rows: ReadonlyArray<{ postId: bigint; authorId: bigint }>,
  ) {
    if (rows.length === 0) return;
    await this.db.batch(
      rows.map((r) => ({ query: INSERT_GRID_ROW, params: [profileId, r.postId, r.authorId] })),
      { prepare: true, consistency: this.consistency.commit, logged: false },
    );
  }

  async getPost(postId: bigint): Promise<PostRecord | undefined> {
    const rs = await this.db.execute(SELECT_POST, [postId], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
    });
    const row = rs.first();
    return row ? postOf(row) : undefined;
  }

  /** Bodies for several posts, in the order asked; missing (deleted) posts are left out. */
  async getPosts(postIds: readonly bigint[]): Promise<PostRecord[]> {
    // One prepared single-partition read per post, in parallel: the driver's recommended
    // alternative to a multi-partition IN.
    const found = await Promise.all(postIds.map((id) => this.getPost(id)));
    return found.filter((p): p is PostRecord => p !== undefined);
  }
}

function postOf(row: types.Row): PostRecord {
  return {
    postId: row.get('post_id') as bigint,
    authorId: row.get('author_id') as bigint,
    caption: (row.get('caption') as string | null) ?? undefined,
    mediaUrl: (row.get('media_url') as string | null) ?? undefined,
    createdAt: row.get('created_at') as Date,
    collaborators: (row.get('collaborators') as bigint[] | null) ?? [],
  };
}
