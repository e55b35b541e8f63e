/**
 * Pending collaborator invitations (`grid_invites`), one partition per invited profile. Written
 * only through that grid's membership effects (store/membership-store.ts), so reading them after
 * the grid's snapshot (rolled forward) shows exactly that version's invitations.
 */
import type { QueryOptions } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';

export interface Invite {
  readonly profileId: bigint;
  readonly postId: bigint;
  readonly authorId: bigint;
}

const SELECT_ONE =
  'SELECT post_id, author_id FROM grid_invites WHERE profile_id = ? AND post_id = ?';
const SELECT_PAGE = 'SELECT post_id, author_id FROM grid_invites WHERE profile_id = ? LIMIT ?';

export class InvitesStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(): QueryOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true };
  }

  async get(profileId: bigint, postId: bigint): Promise<Invite | undefined> {
    const row = (await this.db.execute(SELECT_ONE, [profileId, postId], this.opts())).first();
    return row ? { profileId, postId, authorId: row.get('author_id') as bigint } : undefined;
  }

  /** Newest post first, at most `limit` (the pending count is bounded, so one page is all). */
  async list(profileId: bigint, limit: number): Promise<Invite[]> {
    const rs = await this.db.execute(SELECT_PAGE, [profileId, limit], this.opts());
    return rs.rows.map((r) => ({
      profileId,
      postId: r.get('post_id') as bigint,
      authorId: r.get('author_id') as bigint,
    }));
  }
}
