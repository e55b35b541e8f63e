/**
 * Removed post IDs (`removed_posts`, cql/023_removed_posts.cql): the durable record that a post
 * was deleted or taken down, kept after its body is gone so that no later registration or import
 * brings it back (service/operations/removed-posts.ts).
 *
 * A record is written before the body's `removed_at` fence and never deleted or nulled; writing
 * it again (a retried removal) rewrites the same cells. Every value bound is set: no tombstones.
 */
import type { types } from 'cassandra-driver';
import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';
import { POSTS_PER_QUERY } from './posts-store.js';

/** Why a post is gone: its author's (or platform's) delete, or a moderation takedown. */
export type RemovalReason = 'deleted' | 'taken_down';

export interface RemovalRecord {
  readonly postId: bigint;
  readonly profileId: bigint;
  readonly reason: RemovalReason;
  readonly removedAt: Date;
}

const INSERT =
  'INSERT INTO removed_posts (post_id, profile_id, reason, removed_at) VALUES (?, ?, ?, ?)';
const COLUMNS = 'post_id, profile_id, reason, removed_at';
const SELECT = `SELECT ${COLUMNS} FROM removed_posts WHERE post_id = ?`;
const SELECT_AMONG = `SELECT ${COLUMNS} FROM removed_posts WHERE post_id IN ?`;

export class RemovedPostsStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(scope?: StatementScope): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, scope };
  }

  /** Records the removal (idempotent: the same record again rewrites the same cells). */
  async record(r: RemovalRecord, scope: StatementScope | undefined): Promise<void> {
    const params = [r.postId, r.profileId, r.reason, r.removedAt];
    await this.db.execute(INSERT, params, this.opts(scope));
  }

  async get(postId: bigint, scope?: StatementScope): Promise<RemovalRecord | undefined> {
    const row = (await this.db.execute(SELECT, [postId], this.opts(scope))).first();
    return row ? recordOf(row) : undefined;
  }

  /** The records of those of `postIds` that were removed, by post ID (IN queries, as getPosts). */
  async among(postIds: readonly bigint[]): Promise<Map<bigint, RemovalRecord>> {
    const unique = [...new Set(postIds)];
    const chunks: bigint[][] = [];
    for (let i = 0; i < unique.length; i += POSTS_PER_QUERY)
      chunks.push(unique.slice(i, i + POSTS_PER_QUERY));
    const results = await Promise.all(
      chunks.map((ids) => this.db.execute(SELECT_AMONG, [ids], this.opts())),
    );
    const out = new Map<bigint, RemovalRecord>();
    for (const rs of results) for (const row of rs.rows) out.set(row.get('post_id'), recordOf(row));
    return out;
  }
}

function recordOf(row: types.Row): RemovalRecord {
  return {
    postId: row.get('post_id') as bigint,
    profileId: row.get('profile_id') as bigint,
    reason: row.get('reason') as RemovalReason,
    removedAt: row.get('removed_at') as Date,
  };
}
