/**
 * How many collaborator invitations may wait, and who may send them (issue 22: an inbox that
 * one account could fill shut). An invitation that does not fit is dropped, never the post that
 * named it: the create answers which collaborators were not invited and why.
 *
 * Pure: no I/O. The facts are read by service/ops/invitations.ts.
 */

/** Collaborators one post may name. */
export const MAX_COLLABORATORS = 5;
/** Invitations waiting on one profile, from everyone together. */
export const MAX_PENDING_INVITES = 50;
/** Invitations from one author waiting on one profile. */
export const MAX_PENDING_PER_AUTHOR = 3;
/** Invitations one author may deliver in one UTC day, to everyone together. */
export const MAX_INVITES_PER_AUTHOR_DAY = 100;
