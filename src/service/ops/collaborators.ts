/**
 * Collaborative posts with consent (design §3.1 and §5.2; Instagram's collab invitations).
 *
 * Naming collaborators puts the post on the author's grid and an *invitation* in each admitted
 * collaborator's inbox, outside that collaborator's grid (invitations.ts): nothing shows on a
 * collaborator's profile, and its grid version does not move, until they accept. Accepting turns
 * the invitation into a grid row in one compare-and-set of the collaborator's own grid;
 * declining drops it without touching the grid. The author's grid is untouched by all of this.
 *
 * Bounds (domain/invite-limits.ts): at most MAX_COLLABORATORS per post; an invitation that would
 * pass an invitee's or the author's limits is not sent, and the create says which and why.
 */
import type { ServiceDeps } from '../deps.js';
import { DomainError } from '../../domain/errors.js';
import { idToDate } from '../../domain/ids.js';
import { INBOX_READ_LIMIT, MAX_COLLABORATORS } from '../../domain/invite-limits.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { PostRecord } from '../../store/posts-store.js';
import type { GridPlanner, WriteOptions } from '../write/grid-writer.js';
import {
  admitCollaborators,
  deliverInvites,
  dropFromCollaborators,
  removeFromCollaborator,
  type NotInvited,
} from './invitations.js';
import { dropUncommittedBody, newPostPlanner, type NewPost } from './posts.js';

export { inviteCollaborators } from './invitations.js';

export interface CollabPostResult {
  /** Its `collaborators` are the invited ones. */
  readonly post: PostRecord;
  /** Named collaborators that were not invited, and why. */
  readonly notInvited: readonly NotInvited[];
  /** The author's grid version after the post joined it. */
  readonly version: bigint;
  readonly generation: bigint;
}

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

/** Creates a post on the author's grid and invites each admitted collaborator. */
export async function createCollabPost(
  deps: ServiceDeps,
  authorId: bigint,
  input: NewPost & { readonly collaborators: readonly bigint[] },
  options: WriteOptions = {},
): Promise<CollabPostResult> {
  assertCollaborators(authorId, input.collaborators);
  const { invited, notInvited } = await admitCollaborators(deps, authorId, input.collaborators);
  const postId = deps.nextId();
  const post: PostRecord = {
    postId,
    authorId,
    caption: input.caption,
    mediaUrl: input.mediaUrl,
    createdAt: idToDate(postId),
    collaborators: invited,
  };
  await deps.posts.insertPost(post);
  // The author's grid carries the request's idempotency ticket (options); the planner result
  // names the post and the refusals, so a replay can answer with them.
  const planner = newPostPlanner(deps, postId, authorId);
  let out;
  try {
    out = await deps.writer.writeGrid(
      authorId,
      async (ctx) => {
        const d = await planner(ctx);
        return { ...d, result: { ...d.result, postId, notInvited } };
      },
      options,
    );
  } catch (err) {
    await dropUncommittedBody(deps, authorId, postId, err);
    throw err;
  }
  await deliverInvites(deps, postId, authorId, invited);
  return { post, notInvited, version: out.version, generation: out.generation };
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
export async function acceptInvite(
  deps: ServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  const invite = await deps.invites.get(profileId, postId);
  const claimed =
    invite !== undefined && (invite.claimed || (await deps.invites.claim(profileId, postId)));
  const out = await deps.writer.writeGrid<InviteAnswer>(
    profileId,
    acceptPlanner(deps, postId),
    options,
  );
  if (claimed) await deps.invites.drop(profileId, postId);
  return out;
}

function acceptPlanner(deps: ServiceDeps, postId: bigint): GridPlanner<InviteAnswer> {
  return async ({ profileId }) => {
    const [invite, onGrid, post] = await Promise.all([
      deps.invites.get(profileId, postId),
      deps.store.hasGridRow(profileId, postId),
      deps.posts.getPost(postId), // the removal fence, read after the snapshot
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
export async function declineInvite(
  deps: ServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  const invite = await deps.invites.get(profileId, postId);
  if (!invite) throw noInvite(postId);
  const { withdrawal, out } = await removeFromCollaborator(
    deps,
    profileId,
    postId,
    invite.authorId,
    options,
    'collaborator_declined',
  );
  if (withdrawal === 'none' && !out.result.removed) throw noInvite(postId);
  await dropFromCollaborators(deps, postId, profileId);
  return { result: { changed: true }, version: out.version, generation: out.generation };
}

const noInvite = (postId: bigint) =>
  new DomainError('post_not_found', 'no pending invitation for this post', {
    post_id: postId.toString(),
  });

export interface PendingInvite {
  readonly post: PostRecord;
  readonly authorId: bigint;
}

/** The profile's pending invitations, newest post first (read from the inbox alone). */
export async function listInvites(deps: ServiceDeps, profileId: bigint): Promise<PendingInvite[]> {
  const invites = await deps.invites.list(profileId, INBOX_READ_LIMIT);
  const bodies = new Map(
    (await deps.posts.getPosts(invites.map((i) => i.postId))).map((p) => [p.postId, p]),
  );
  return invites.flatMap((i) => {
    const post = bodies.get(i.postId);
    return post && !post.removedAt ? [{ post, authorId: i.authorId }] : [];
  });
}

/**
 * Removes `collaboratorId` from the post: by the author, or by the collaborator leaving. Only the
 * collaborator's grid changes (row, archive record: post-removal.ts) and its invitation.
 */
export async function removeCollaborator(
  deps: ServiceDeps,
  actorId: bigint,
  postId: bigint,
  collaboratorId: bigint,
  options: WriteOptions = {},
) {
  const post = await deps.posts.getPost(postId);
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
    deps,
    collaboratorId,
    postId,
    post.authorId,
    options,
    actorId === collaboratorId ? 'collaborator_left' : 'collaborator_removed',
  );
  await dropFromCollaborators(deps, postId, collaboratorId);
  return out;
}
