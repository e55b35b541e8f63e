/**
 * How many collaborator invitations may wait, and who may send them (issue 22: an inbox that
 * one account could fill shut). An invitation that does not fit is dropped, never the post that
 * named it: the create answers which collaborators were not invited and why.
 *
 * Pure: no I/O. The facts are read by service/operations/invitations.ts.
 */

/** Collaborators one post may name. */
export const MAX_COLLABORATORS = 5;
/** Invitations waiting on one profile, from everyone together. */
export const MAX_PENDING_INVITES = 50;
/** Invitations from one author waiting on one profile. */
export const MAX_PENDING_PER_AUTHOR = 3;
/** Invitations one author may deliver in one UTC day, to everyone together. */
export const MAX_INVITES_PER_AUTHOR_DAY = 100;

/**
 * Why a named collaborator was not invited (the create's `not_invited[].reason`). What the
 * author learns is only what is the author's own: `daily_limit`, their own quota; every refusal
 * that comes from the invitee's state (a block, a full inbox, this author's invitations already
 * waiting there) is one `not_delivered`, so a block cannot be told from the others (issue 31).
 */
export const NOT_INVITED_REASONS = ['not_delivered', 'daily_limit'] as const;
export type NotInvitedReason = (typeof NOT_INVITED_REASONS)[number];

export interface InboxFacts {
  /** The invitee blocks this author. */
  readonly blocked: boolean;
  /** Invitations waiting on the invitee, from everyone. */
  readonly pending: number;
  /** Of those, from this author. */
  readonly pendingFromAuthor: number;
}

/**
 * The first limit an invitation from an author to one invitee runs into, or undefined when it
 * may be delivered. `sentToday` counts the author's deliveries today, those of this post so far
 * included. The author's own quota is checked first: past it every invitee reads the same,
 * blocked or not; before it, a block, the per-pair cap and a full inbox are all `not_delivered`.
 */
export function refusalOf(facts: InboxFacts, sentToday: number): NotInvitedReason | undefined {
  if (sentToday >= MAX_INVITES_PER_AUTHOR_DAY) return 'daily_limit';
  if (facts.blocked) return 'not_delivered';
  if (facts.pendingFromAuthor >= MAX_PENDING_PER_AUTHOR) return 'not_delivered';
  if (facts.pending >= MAX_PENDING_INVITES) return 'not_delivered';
  return undefined;
}

/** The UTC day (days since the epoch) the daily cap counts in. */
export const inviteDay = (nowMs: number): number => Math.floor(nowMs / 86_400_000);

/**
 * How many rows of an inbox a count or a listing reads: the cap is checked before writing, so
 * invitations delivered at the same moment can pass it by the number in flight; twice the cap
 * covers that with room to spare and keeps the read one bounded page.
 */
export const INBOX_READ_LIMIT = 2 * MAX_PENDING_INVITES;
