/**
 * Archive records (`archived_posts`, with the listing `archived_by_time`): which posts a profile
 * archived, the effective key each had (for "unarchive to the previous position"), and when.
 * Written only through the grid's membership effects (store/membership-store.ts); read here.
 */
import type { QueryOptions, types } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';

export interface ArchiveRecord {
  readonly profileId: bigint;
  readonly postId: bigint;
  readonly authorId: bigint;
  /** Effective key when archived; undefined = it had no override (its own ID). */
  readonly sortKey: bigint | undefined;
  readonly archivedAt: Date;
  /** ID issued when it was archived (orders the listing); undefined for records before it. */
  readonly seq: bigint | undefined;
}

const SELECT =
  'SELECT profile_id, post_id, author_id, sort_key, archived_at, archived_seq FROM archived_posts WHERE profile_id = ? AND post_id = ?';
const SELECT_AMONG = 'SELECT post_id FROM archived_posts WHERE profile_id = ? AND post_id IN ?';
const LIST = {
  first: 'SELECT archived_seq, post_id FROM archived_by_time WHERE profile_id = ? LIMIT ?',
  before:
    'SELECT archived_seq, post_id FROM archived_by_time WHERE profile_id = ? AND archived_seq < ? LIMIT ?',
} as const;

export class ArchiveStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(extra: QueryOptions = {}): QueryOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, ...extra };
  }

  /** Which of `postIds` the profile has archived (one statement). */
  async archivedAmong(profileId: bigint, postIds: readonly bigint[]): Promise<Set<bigint>> {
    if (postIds.length === 0) return new Set();
    const rs = await this.db.execute(SELECT_AMONG, [profileId, [...postIds]], this.opts());
    return new Set(rs.rows.map((r) => r.get('post_id') as bigint));
  }

  async get(profileId: bigint, postId: bigint): Promise<ArchiveRecord | undefined> {
    const rs = await this.db.execute(SELECT, [profileId, postId], this.opts());
    const row = rs.first();
    return row ? recordOf(row) : undefined;
  }

  /** Newest archived first, strictly before `beforeSeq` when given. */
  async list(
    profileId: bigint,
    limit: number,
    beforeSeq?: bigint,
  ): Promise<Array<{ seq: bigint; postId: bigint }>> {
    const rs =
      beforeSeq === undefined
        ? await this.db.execute(LIST.first, [profileId, limit], this.opts())
        : await this.db.execute(LIST.before, [profileId, beforeSeq, limit], this.opts());
    return rs.rows.map((r) => ({
      seq: r.get('archived_seq') as bigint,
      postId: r.get('post_id') as bigint,
    }));
  }
}

function recordOf(row: types.Row): ArchiveRecord {
  return {
    profileId: row.get('profile_id') as bigint,
    postId: row.get('post_id') as bigint,
    authorId: row.get('author_id') as bigint,
    sortKey: (row.get('sort_key') as bigint | null) ?? undefined,
    archivedAt: row.get('archived_at') as Date,
    seq: (row.get('archived_seq') as bigint | null) ?? undefined,
  };
}
