/**
 * Collaborator invitations live outside the invitee's grid (issue 22): sending, listing,
 * declining and withdrawing one never runs the invitee's compare-and-set, so a stranger cannot
 * bump its version, its ETag or its cache. Only accepting writes the invitee's grid
 * (collaborators.ts). What makes that safe is the invitation row's own lightweight transactions
 * (store/invites-store.ts): an accept *claims* the row before its grid write, and reads it again
 * after its snapshot; whoever removes the invitation either deletes it while unclaimed (the
 * accept's claim then fails) or, finding it claimed, deletes it and bumps the invitee's grid
 * once, so an accept planned on the old version loses its compare-and-set and re-reads.
 *
 * Limits (domain/invite-limits.ts) decide per invitee before anything is written; a refused
 * invitation is reported, never the post that named it.
 */
import type { ChangeKind } from '../../domain/change-log.js';
import { DomainError } from '../../domain/errors.js';
import {
  INBOX_READ_LIMIT,
  MAX_COLLABORATORS,
  MAX_INVITES_PER_AUTHOR_DAY,
  inviteDay,
  refusalOf,
  type InboxFacts,
  type NotInvitedReason,
} from '../../domain/invite-limits.js';
import type { GridStore } from '../../store/grid-store.js';
import type { InviteGuardsStore } from '../../store/invite-guards-store.js';
import type { InvitesStore, Withdrawal } from '../../store/invites-store.js';
import type { PostsStore } from '../../store/posts-store.js';
import type { ProfilesStore } from '../../store/profiles-store.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { removalPlanner, type RemovalPorts } from './post-removal.js';
import type { StatementScope } from '../../store/statement-scope.js';

/** The inboxes, the limits' records, the post bodies and whether a grid holds a post. */
export interface InvitePorts {
  readonly invites: InvitesStore;
  readonly inviteGuards: InviteGuardsStore;
  readonly posts: Pick<PostsStore, 'getPost'>;
  readonly profiles: Pick<ProfilesStore, 'setCollaborators'>;
  readonly store: Pick<GridStore, 'hasGridRow'>;
}

/** Withdrawing an invitation and taking the post off that grid (removeFromCollaborator). */
export interface WithdrawPorts extends RemovalPorts {
  readonly invites: Pick<InvitesStore, 'withdrawPending' | 'drop'>;
  readonly writer: Pick<GridWriter, 'writeGrid'>;
}

export interface NotInvited {
  readonly profileId: bigint;
  readonly reason: NotInvitedReason;
}

/** At most MAX_COLLABORATORS, distinct, and not the author: checked before anything is read. */
export function assertCollaborators(authorId: bigint, collaborators: readonly bigint[]): void {
  if (collaborators.length > MAX_COLLABORATORS) {
    throw new DomainError('invalid_request', `at most ${MAX_COLLABORATORS} collaborators`, {
      field: 'collaborators',
    });
  }
  if (new Set(collaborators).size !== collaborators.length || collaborators.includes(authorId)) {
    throw new DomainError('invalid_request', 'collaborators must be distinct and not the author', {
      field: 'collaborators',
    });
  }
}

export interface Admission {
  /** In the order named. */
  readonly invited: bigint[];
  readonly notInvited: NotInvited[];
}

/** Which of `collaborators` an invitation from `authorId` may reach now (reads only). */
export async function admitCollaborators(
  ports: Pick<InvitePorts, 'inviteGuards' | 'invites'>,
  authorId: bigint,
  collaborators: readonly bigint[],
  scope: StatementScope | undefined,
): Promise<Admission> {
  if (collaborators.length === 0) return { invited: [], notInvited: [] };
  const day = inviteDay(Date.now());
  const [sentBefore, facts] = await Promise.all([
    ports.inviteGuards.sentOn(authorId, day, MAX_INVITES_PER_AUTHOR_DAY, scope),
    Promise.all(collaborators.map((c) => inboxFacts(ports, c, authorId, scope))),
  ]);
  let sent = sentBefore;
  const out: Admission = { invited: [], notInvited: [] };
  collaborators.forEach((profileId, i) => {
    const reason = refusalOf(facts[i]!, sent);
    if (reason) out.notInvited.push({ profileId, reason });
    else {
      out.invited.push(profileId);
      sent += 1;
    }
  });
  return out;
}

async function inboxFacts(
  ports: Pick<InvitePorts, 'inviteGuards' | 'invites'>,
  invitee: bigint,
  authorId: bigint,
  scope: StatementScope | undefined,
) {
  const [blocked, pending] = await Promise.all([
    ports.inviteGuards.isBlocked(invitee, authorId, scope),
    ports.invites.list(invitee, INBOX_READ_LIMIT, scope),
  ]);
  const fromAuthor = pending.filter((i) => i.authorId === authorId).length;
  return { blocked, pending: pending.length, pendingFromAuthor: fromAuthor } satisfies InboxFacts;
}

/**
 * Writes the admitted invitations of a post whose body lists them. The block is read again
 * after each write, and the body's removal fence after all of them: a block or a delete that
 * landed meanwhile either saw the invitation (and withdrew it) or is seen here (and the
 * invitation is taken back), so none outlives a block or its post.
 */
export async function deliverInvites(
  ports: InvitePorts,
  postId: bigint,
  authorId: bigint,
  invited: readonly bigint[],
  scope: StatementScope | undefined,
): Promise<void> {
  const day = inviteDay(Date.now());
  for (const invitee of invited) {
    await ports.inviteGuards.recordSent(authorId, day, postId, invitee, scope);
    await ports.invites.put(invitee, postId, authorId, scope);
    if (await ports.inviteGuards.isBlocked(invitee, authorId, scope)) {
      if ((await ports.invites.withdrawPending(invitee, postId, authorId, scope)) === 'withdrawn')
        await dropFromCollaborators(ports, postId, invitee, scope);
    }
  }
  const body = invited.length > 0 ? await ports.posts.getPost(postId, scope) : undefined;
  if (invited.length > 0 && (!body || body.removedAt)) {
    for (const invitee of invited)
      await ports.invites.withdrawPending(invitee, postId, authorId, scope);
  }
}

/**
 * Invites collaborators of a post already on the author's grid whose body names them (a
 * registered post, register.ts): the admitted ones that have no invitation and do not hold
 * the post yet, so a repeated call invites nobody twice. Answers the ones not invited.
 */
export async function inviteCollaborators(
  ports: InvitePorts,
  postId: bigint,
  authorId: bigint,
  collaborators: readonly bigint[],
  scope: StatementScope | undefined,
): Promise<readonly NotInvited[]> {
  const fresh: bigint[] = [];
  for (const c of collaborators) {
    const [invite, onGrid] = await Promise.all([
      ports.invites.get(c, postId, scope),
      ports.store.hasGridRow(c, postId, scope),
    ]);
    if (!invite && !onGrid) fresh.push(c);
  }
  const { invited, notInvited } = await admitCollaborators(ports, authorId, fresh, scope);
  await deliverInvites(ports, postId, authorId, invited, scope);
  return notInvited;
}

/**
 * Takes `postId` off a collaborator's grid in every form: the invitation first (outside the
 * grid), then the grid's rows, archive record, override and pin in one compare-and-set. That
 * write is a skip when nothing is there, except after cancelling a claimed invitation: then it
 * bumps the grid (see the top), which only an accept of the invitee's own can have caused.
 */
export async function removeFromCollaborator(
  ports: WithdrawPorts,
  profileId: bigint,
  postId: bigint,
  authorId: bigint,
  options: WriteOptions = {},
  change: ChangeKind = 'deleted',
) {
  const { scope } = options;
  const withdrawal: Withdrawal = await ports.invites.withdrawPending(
    profileId,
    postId,
    authorId,
    scope,
  );
  if (withdrawal === 'claimed') await ports.invites.drop(profileId, postId, scope);
  const bump = withdrawal === 'claimed';
  const out = await ports.writer.writeGrid(
    profileId,
    removalPlanner(ports, postId, { bump, change }),
    options,
  );
  return { withdrawal, out };
}

/** The post's collaborator list without `collaboratorId` (the body; no grid). */
export async function dropFromCollaborators(
  ports: Pick<InvitePorts, 'posts' | 'profiles'>,
  postId: bigint,
  collaboratorId: bigint,
  scope: StatementScope | undefined,
): Promise<void> {
  const post = await ports.posts.getPost(postId, scope);
  if (!post || !post.collaborators.includes(collaboratorId)) return;
  await ports.profiles.setCollaborators(
    postId,
    post.collaborators.filter((p) => p !== collaboratorId),
    scope,
  );
}

/**
 * `profileId` takes no invitations from `authorId` any more: new ones are refused (reported to
 * the author as `not_delivered`, like a full inbox) and the pending ones are dropped, as declines. One being accepted right now
 * is left to its accept. Blocking again changes nothing.
 */
export async function blockAuthor(
  ports: InvitePorts,
  profileId: bigint,
  authorId: bigint,
  scope?: StatementScope,
): Promise<{ readonly dropped: number }> {
  if (authorId === profileId) {
    throw new DomainError('invalid_request', 'a profile cannot block itself', {
      field: 'profile_id',
    });
  }
  await ports.inviteGuards.block(profileId, authorId, new Date(), scope);
  // Listed after the block is written: an invitation written later reads the block itself.
  const theirs = (await ports.invites.list(profileId, INBOX_READ_LIMIT, scope)).filter(
    (i) => i.authorId === authorId,
  );
  let dropped = 0;
  for (const i of theirs) {
    const w = await ports.invites.withdrawPending(profileId, i.postId, authorId, scope);
    if (w !== 'withdrawn') continue;
    await dropFromCollaborators(ports, i.postId, profileId, scope);
    dropped += 1;
  }
  return { dropped };
}

export async function unblockAuthor(
  ports: Pick<InvitePorts, 'inviteGuards'>,
  profileId: bigint,
  authorId: bigint,
  scope?: StatementScope,
): Promise<void> {
  await ports.inviteGuards.unblock(profileId, authorId, scope);
}
