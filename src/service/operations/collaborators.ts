/**
 * Answering and ending a collaboration (design §3.1 and §5.2; Instagram's collab invitations):
 * accept, decline, leave and remove. The invitation a create sent (create.ts) lives outside the
 * invitee's grid (invitations.ts); accepting turns it into a grid row in one compare-and-set of the
 * collaborator's own grid, declining drops it without touching the grid. Leaving (the
 * collaborator) and removing (the author) take the post off the collaborator's grid only. The
 * author's grid is untouched by all of this.
 */
import { DomainError } from '../../domain/errors.js';
import { INBOX_READ_LIMIT } from '../../domain/invite-limits.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { ArchiveStore } from '../../store/archive-store.js';
import type { InvitesStore } from '../../store/invites-store.js';
import type { PostRecord, PostsStore } from '../../store/posts-store.js';
import type { GridPlanner, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import {
  dropFromCollaborators,
  removeFromCollaborator,
  type InvitePorts,
  type WithdrawPorts,
} from './invitations.js';

export interface CollabPorts extends InvitePorts, WithdrawPorts {
  readonly invites: InvitesStore;
  readonly posts: Pick<PostsStore, 'getPost' | 'getPosts'>;
  readonly archive: Pick<ArchiveStore, 'get' | 'archivedAmong'>;
}

export interface InviteAnswer {
  /** False when it was already accepted (accept) — nothing written. */
  readonly changed: boolean;
}

/**
 * Accepts an invitation: the post joins the collaborator's grid (its chronological place). The
 * claim comes first: from then on nothing takes the invitation away without bumping this grid
 * (invitations.ts), and the planner reads it again after its snapshot.
 */
export function acceptInvite(
  ports: CollabPorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  return trackOp('accept', async () => {
    const opts: WriteOptions = { ...options, op: 'accept' };
    const { scope } = opts;
    const invite = await ports.invites.get(profileId, postId, scope);
    const claimed =
      invite !== undefined &&
      (invite.claimed || (await ports.invites.claim(profileId, postId, scope)));
    const out = await ports.writer.writeGrid<InviteAnswer>(
      profileId,
      acceptPlanner(ports, postId),
      opts,
    );
    if (claimed) await ports.invites.drop(profileId, postId, scope);
    return out;
  });
}

function acceptPlanner(ports: CollabPorts, postId: bigint): GridPlanner<InviteAnswer> {
  return async ({ profileId }) => {
    const [invite, onGrid, post] = await Promise.all([
      ports.invites.get(profileId, postId),
      ports.store.hasGridRow(profileId, postId),
      ports.posts.getPost(postId), // the removal fence, read after the snapshot
    ]);
    const alive = post !== undefined && !post.removedAt;
    if (onGrid) {
      // Accepted before (a retry) is a 200 that changes nothing; one's own post is no invitation.
      if (alive && post.authorId !== profileId && post.collaborators.includes(profileId))
        return { kind: 'skip', result: { changed: false } };
      throw noInvite(postId);
    }
    if (!invite || !alive) throw noInvite(postId);
    const effects: MembershipOp[] = [{ op: 'grid_put', postId, authorId: invite.authorId }];
    const change = { kind: 'collaborator_accepted', postIds: [postId] } as const;
    return { kind: 'write', mutation: { effects }, result: { changed: true }, change };
  };
}

/**
 * Declines an invitation; the post's collaborator list no longer names this profile. The grid
 * is only read (its version is the answer), unless an accept of this profile had claimed the
 * invitation: then the decline wins over it as a leave would.
 */
export function declineInvite(
  ports: CollabPorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  return trackOp('decline', async () => {
    const opts: WriteOptions = { ...options, op: 'decline' };
    const invite = await ports.invites.get(profileId, postId, opts.scope);
    if (!invite) throw noInvite(postId);
    const { withdrawal, out } = await removeFromCollaborator(
      ports,
      profileId,
      postId,
      invite.authorId,
      opts,
      'collaborator_declined',
    );
    if (withdrawal === 'none' && !out.result.removed) throw noInvite(postId);
    await dropFromCollaborators(ports, postId, profileId, opts.scope);
    return { result: { changed: true }, version: out.version, generation: out.generation };
  });
}

const noInvite = (postId: bigint) =>
  new DomainError('post_not_found', 'no pending invitation for this post', {
    post_id: postId.toString(),
  });

export interface PendingInvite {
  readonly post: PostRecord;
  readonly authorId: bigint;
}

/**
 * The profile's pending invitations, newest post first. A post its author archived is the
 * author's alone meanwhile (docs/http-api.md "Who sees what"): its invitation is not listed until
 * it is unarchived.
 */
export async function listInvites(ports: CollabPorts, profileId: bigint): Promise<PendingInvite[]> {
  const invites = await ports.invites.list(profileId, INBOX_READ_LIMIT);
  const byAuthor = new Map<bigint, bigint[]>();
  for (const i of invites)
    byAuthor.set(i.authorId, [...(byAuthor.get(i.authorId) ?? []), i.postId]);
  const [bodies, archived] = await Promise.all([
    ports.posts.getPosts(invites.map((i) => i.postId)),
    Promise.all([...byAuthor].map(([author, ids]) => ports.archive.archivedAmong(author, ids))),
  ]);
  const body = new Map(bodies.map((p) => [p.postId, p]));
  const hidden = new Set(archived.flatMap((set) => [...set]));
  return invites.flatMap((i) => {
    const post = body.get(i.postId);
    return post && !post.removedAt && !hidden.has(i.postId) ? [{ post, authorId: i.authorId }] : [];
  });
}

/**
 * Removes `collaboratorId` from the post: by the author, or by the collaborator leaving. Only the
 * collaborator's grid changes (row, archive record: post-removal.ts) and its invitation.
 */
export function removeCollaborator(
  ports: CollabPorts,
  actorId: bigint,
  postId: bigint,
  collaboratorId: bigint,
  options: WriteOptions = {},
) {
  return trackOp('remove_collaborator', async () => {
    const opts: WriteOptions = { ...options, op: 'remove_collaborator' };
    const post = await ports.posts.getPost(postId, opts.scope);
    if (!post || post.removedAt)
      throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
    if (actorId !== post.authorId && actorId !== collaboratorId) {
      throw new DomainError('forbidden', 'only the author or the collaborator can do this', {
        post_id: postId.toString(),
      });
    }
    if (!post.collaborators.includes(collaboratorId)) {
      throw new DomainError('post_not_on_grid', 'that profile is not a collaborator of this post', {
        post_id: postId.toString(),
        profile_id: collaboratorId.toString(),
      });
    }
    // The grid first, the body's list last: a retry after a failure in between still finds the
    // collaborator listed and finishes (the removal skips what is already gone).
    const { out } = await removeFromCollaborator(
      ports,
      collaboratorId,
      postId,
      post.authorId,
      opts,
      actorId === collaboratorId ? 'collaborator_left' : 'collaborator_removed',
    );
    await dropFromCollaborators(ports, postId, collaboratorId, opts.scope);
    return out;
  });
}
