/**
 * Archive records (`archived_posts`, cql/011_archive.cql): which posts a profile archived and the
 * effective key each had, for "unarchive to the previous position". Never on the grid read path.
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
}

const INSERT =
  'INSERT INTO archived_posts (profile_id, post_id, author_id, sort_key, archived_at) VALUES (?, ?, ?, ?, ?)';
const SELECT =
  'SELECT profile_id, post_id, author_id, sort_key, archived_at FROM archived_posts WHERE profile_id = ? AND post_id = ?';
const DELETE = 'DELETE FROM archived_posts WHERE profile_id = ? AND post_id = ?';

export class ArchiveStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(extra: QueryOptions = {}): QueryOptions {
    return { prepare: true, consistency: this.consistency.commit, ...extra };
  }

  async put(r: ArchiveRecord): Promise<void> {
    // sort_key undefined binds as unset (never null: no tombstone on the insert).
    await this.db.execute(
      INSERT,
      [r.profileId, r.postId, r.authorId, r.sortKey, r.archivedAt],
      this.opts(),
    );
  }

  async get(profileId: bigint, postId: bigint): Promise<ArchiveRecord | undefined> {
    const rs = await this.db.execute(
      SELECT,
      [profileId, postId],
      this.opts({ isIdempotent: true }),
    );
    const row = rs.first();
    return row ? recordOf(row) : undefined;
  }

  async remove(profileId: bigint, postId: bigint): Promise<void> {
    await this.db.execute(DELETE, [profileId, postId], this.opts({ isIdempotent: true }));
  }
}

function recordOf(row: types.Row): ArchiveRecord {
  return {
    profileId: row.get('profile_id') as bigint,
    postId: row.get('post_id') as bigint,
    authorId: row.get('author_id') as bigint,
    sortKey: (row.get('sort_key') as bigint | null) ?? undefined,
    archivedAt: row.get('archived_at') as Date,
  };
}
