/**
 * What keeps invitations from being used against the invitee (domain/invite-limits.ts): the
 * authors a profile blocks (`invite_blocks`) and the invitations each author delivered per UTC
 * day (`invites_sent`, cql/020_invitations.cql). Neither is part of any grid.
 */

import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

/** Two days: a day's rows outlive the day they count in, then expire unread. */
const SENT_TTL_S = 2 * 86_400;

const Q = {
  blocked: 'SELECT author_id FROM invite_blocks WHERE profile_id = ? AND author_id = ?',
  block: 'INSERT INTO invite_blocks (profile_id, author_id, blocked_at) VALUES (?, ?, ?)',
  unblock: 'DELETE FROM invite_blocks WHERE profile_id = ? AND author_id = ?',
  sent: 'SELECT post_id FROM invites_sent WHERE author_id = ? AND day = ? LIMIT ?',
  record: `INSERT INTO invites_sent (author_id, day, post_id, invitee_id) VALUES (?, ?, ?, ?) USING TTL ${SENT_TTL_S}`,
} as const;

export class InviteGuardsStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(scope: StatementScope | undefined): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, scope };
  }

  async isBlocked(profileId: bigint, authorId: bigint, scope?: StatementScope): Promise<boolean> {
    const rs = await this.db.execute(Q.blocked, [profileId, authorId], this.opts(scope));
    return rs.rowLength > 0;
  }

  async block(profileId: bigint, authorId: bigint, at: Date, scope: StatementScope | undefined) {
    await this.db.execute(Q.block, [profileId, authorId, at], this.opts(scope));
  }

  async unblock(
    profileId: bigint,
    authorId: bigint,
    scope: StatementScope | undefined,
  ): Promise<void> {
    await this.db.execute(Q.unblock, [profileId, authorId], this.opts(scope));
  }

  /** The author's deliveries on `day`, counted up to `cap` (all the caller needs to know). */
  async sentOn(authorId: bigint, day: number, cap: number, scope?: StatementScope) {
    return (await this.db.execute(Q.sent, [authorId, day, cap], this.opts(scope))).rowLength;
  }

  async recordSent(
    authorId: bigint,
    day: number,
    postId: bigint,
    inviteeId: bigint,
    scope: StatementScope | undefined,
  ) {
    await this.db.execute(Q.record, [authorId, day, postId, inviteeId], this.opts(scope));
  }
}
