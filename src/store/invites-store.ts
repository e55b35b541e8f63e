/**
 * Pending collaborator invitations (`grid_invites`), one partition per invited profile. They are
 * not part of the invitee's grid: no compare-and-set of the grid writes them (cql/020_invitations.cql).
 * A row is inserted once (fresh post IDs: never re-created) and afterwards changes only by
 * lightweight transactions on itself, so its three ends are linearizable with each other:
 *   - `claim` (an accept, before its grid write): pending → claimed, IF EXISTS;
 *   - `withdrawPending` (decline, block, delete, leave): deletes it only while not claimed;
 *   - `drop` (an accept that committed, or a withdrawal of a claimed one): deletes it IF EXISTS.
 * Rows written by grids' membership effects before 020 have `claimed` null: not claimed.
 */

import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

export interface Invite {
  readonly profileId: bigint;
  readonly postId: bigint;
  readonly authorId: bigint;
  /** An accept has begun (it may have crashed: accepting again finishes it). */
  readonly claimed: boolean;
}

/** What `withdrawPending` found: deleted while pending, claimed by an accept, or none. */
export type Withdrawal = 'withdrawn' | 'claimed' | 'none';

const COLS = 'post_id, author_id, claimed';
const Q = {
  one: `SELECT ${COLS} FROM grid_invites WHERE profile_id = ? AND post_id = ?`,
  page: `SELECT ${COLS} FROM grid_invites WHERE profile_id = ? LIMIT ?`,
  put: 'INSERT INTO grid_invites (profile_id, post_id, author_id, claimed) VALUES (?, ?, ?, false)',
  claim: 'UPDATE grid_invites SET claimed = true WHERE profile_id = ? AND post_id = ? IF EXISTS',
  withdraw:
    'DELETE FROM grid_invites WHERE profile_id = ? AND post_id = ? IF author_id = ? AND claimed != true',
  drop: 'DELETE FROM grid_invites WHERE profile_id = ? AND post_id = ? IF EXISTS',
} as const;

export class InvitesStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private opts(scope: StatementScope | undefined): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, scope };
  }

  /** A lightweight transaction; only `withdrawPending` may not be retried (its answer). */
  private lwt(isIdempotent: boolean, scope: StatementScope | undefined): CqlOptions {
    return {
      prepare: true,
      consistency: this.consistency.commit,
      serialConsistency: this.consistency.serial,
      isIdempotent,
      scope,
    };
  }

  async get(
    profileId: bigint,
    postId: bigint,
    scope?: StatementScope,
  ): Promise<Invite | undefined> {
    const row = (await this.db.execute(Q.one, [profileId, postId], this.opts(scope))).first();
    return row ? inviteOf(profileId, row) : undefined;
  }

  /** Newest post first, at most `limit` (the pending count is bounded, so one page is all). */
  async list(profileId: bigint, limit: number, scope?: StatementScope): Promise<Invite[]> {
    const rs = await this.db.execute(Q.page, [profileId, limit], this.opts(scope));
    return rs.rows.map((r) => inviteOf(profileId, r));
  }

  /** Writes a new invitation (its post ID is fresh: the row never existed). */
  async put(
    profileId: bigint,
    postId: bigint,
    authorId: bigint,
    scope: StatementScope | undefined,
  ) {
    await this.db.execute(Q.put, [profileId, postId, authorId], this.opts(scope));
  }

  /** Marks the invitation as being accepted; false when there is none (any more). */
  async claim(
    profileId: bigint,
    postId: bigint,
    scope: StatementScope | undefined,
  ): Promise<boolean> {
    const rs = await this.db.execute(Q.claim, [profileId, postId], this.lwt(true, scope));
    return rs.wasApplied();
  }

  /** Deletes the invitation from `authorId` unless an accept has claimed it. */
  async withdrawPending(
    profileId: bigint,
    postId: bigint,
    authorId: bigint,
    scope: StatementScope | undefined,
  ): Promise<Withdrawal> {
    const params = [profileId, postId, authorId];
    const rs = await this.db.execute(Q.withdraw, params, this.lwt(false, scope));
    if (rs.wasApplied()) return 'withdrawn';
    return rs.first()?.get('claimed') === true ? 'claimed' : 'none';
  }

  /** Deletes the invitation whatever its state (after an accept, or to cancel a claimed one). */
  async drop(profileId: bigint, postId: bigint, scope: StatementScope | undefined): Promise<void> {
    await this.db.execute(Q.drop, [profileId, postId], this.lwt(true, scope));
  }
}

function inviteOf(profileId: bigint, r: { get(name: string): unknown }): Invite {
  return {
    profileId,
    postId: r.get('post_id') as bigint,
    authorId: r.get('author_id') as bigint,
    claimed: r.get('claimed') === true,
  };
}
