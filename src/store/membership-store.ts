/**
 * Applies a grid's recorded membership effects (domain/membership.ts) to the side tables:
 * `grid_posts`, `archived_posts` + `archived_by_time` (and `grid_invites` for records written
 * before invitations left the grid, domain/membership.ts). Then marks the record
 * applied in the override partition (`applied_version`, a static cell no compare-and-set ever
 * reads or writes, so a plain write beside the LWTs is safe).
 *
 * Every cell is written `USING TIMESTAMP effects.ts`: re-applying a record (a second writer, a
 * reader that came first, a slow writer waking up late) is idempotent, and an older record
 * applied after a newer one loses by timestamp. The ops go in one LOGGED batch (the batchlog
 * completes a half-written multi-table change); the marker is written only after the batch is
 * acknowledged, so a reader that sees the marker also sees the rows.
 */
import type { QueryOptions } from 'cassandra-driver';
import type { GridHead } from '../domain/grid-head.js';
import { needsRollForward, type Effects, type MembershipOp } from '../domain/membership.js';
import { idToDate } from '../domain/ids.js';
import type { Consistency, Cql } from './cassandra.js';

const Q = {
  gridPut:
    'INSERT INTO grid_posts (profile_id, post_id, author_id) VALUES (?, ?, ?) USING TIMESTAMP ?',
  gridDrop: 'DELETE FROM grid_posts USING TIMESTAMP ? WHERE profile_id = ? AND post_id = ?',
  archivePut:
    'INSERT INTO archived_posts (profile_id, post_id, author_id, sort_key, archived_at, archived_seq) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?',
  archiveListPut:
    'INSERT INTO archived_by_time (profile_id, archived_seq, post_id) VALUES (?, ?, ?) USING TIMESTAMP ?',
  archiveDrop: 'DELETE FROM archived_posts USING TIMESTAMP ? WHERE profile_id = ? AND post_id = ?',
  archiveListDrop:
    'DELETE FROM archived_by_time USING TIMESTAMP ? WHERE profile_id = ? AND archived_seq = ?',
  invitePut:
    'INSERT INTO grid_invites (profile_id, post_id, author_id) VALUES (?, ?, ?) USING TIMESTAMP ?',
  inviteDrop: 'DELETE FROM grid_invites USING TIMESTAMP ? WHERE profile_id = ? AND post_id = ?',
  mark: 'UPDATE grid_overrides USING TIMESTAMP ? SET applied_version = ? WHERE profile_id = ?',
  stamp: 'UPDATE grid_posts USING TIMESTAMP ? SET membership_version = ? WHERE profile_id = ?',
} as const;

interface Statement {
  readonly query: string;
  readonly params: unknown[];
}

/** The CQL of one op (sort_key undefined binds unset: no null, no tombstone). */
export function opStatements(profileId: bigint, ts: bigint, o: MembershipOp): Statement[] {
  switch (o.op) {
    case 'grid_put':
      return [{ query: Q.gridPut, params: [profileId, o.postId, o.authorId, ts] }];
    case 'grid_drop':
      return [{ query: Q.gridDrop, params: [ts, profileId, o.postId] }];
    case 'archive_put':
      return [
        {
          query: Q.archivePut,
          params: [profileId, o.postId, o.authorId, o.sortKey, idToDate(o.seq), o.seq, ts],
        },
        { query: Q.archiveListPut, params: [profileId, o.seq, o.postId, ts] },
      ];
    case 'archive_drop':
      return [
        { query: Q.archiveDrop, params: [ts, profileId, o.postId] },
        ...(o.seq === undefined
          ? []
          : [{ query: Q.archiveListDrop, params: [ts, profileId, o.seq] }]),
      ];
    case 'invite_put':
      return [{ query: Q.invitePut, params: [profileId, o.postId, o.authorId, ts] }];
    case 'invite_drop':
      return [{ query: Q.inviteDrop, params: [ts, profileId, o.postId] }];
  }
}

export class MembershipStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(logged: boolean): QueryOptions {
    return { prepare: true, consistency: this.consistency.commit, logged, isIdempotent: true };
  }

  /**
   * Applies the head's recorded effects if they are not marked applied yet (idempotent). Takes
   * no statement scope: finishing another write's effects is not a write of the caller's request
   * (a read that rolls forward and then fails is still just a failed read).
   */
  async rollForward(profileId: bigint, head: GridHead): Promise<boolean> {
    const effects = head.effects;
    if (!needsRollForward(effects, head.appliedVersion ?? 0n)) return false;
    await this.apply(profileId, effects);
    return true;
  }

  /** Brings the side tables in line with `effects`, then marks them applied. Idempotent. */
  async apply(profileId: bigint, effects: Effects): Promise<void> {
    const statements = [
      ...effects.ops.flatMap((o) => opStatements(profileId, effects.ts, o)),
      // The rows' stamp (cql/021_grid_posts_stamp.cql): in the batch that changes them, so a
      // query of grid_posts sees rows and stamp of one record (a partition's part of a batch is
      // applied atomically). A grid_posts-only batch is one partition: no batchlog needed.
      { query: Q.stamp, params: [effects.ts, effects.version, profileId] },
    ];
    const onlyGridRows = effects.ops.every((o) => o.op === 'grid_put' || o.op === 'grid_drop');
    await this.db.batch(statements, this.opts(!onlyGridRows));
    await this.db.execute(Q.mark, [effects.ts, effects.version, profileId], this.opts(false));
  }
}
