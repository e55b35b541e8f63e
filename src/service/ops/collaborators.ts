/**
 * Collaborative posts with consent (design §3.1 and §5.2; Instagram's collab invitations).
 *
 * Naming collaborators puts the post on the author's grid and an *invitation* on each
 * collaborator's grid (a membership effect, domain/membership.ts): nothing shows on a
 * collaborator's profile until they accept. Accepting turns the invitation into a grid row in
 * one compare-and-set of the collaborator's own grid; declining drops it. The author's grid is
 * untouched by all of this. Every grid that changes is bumped in its own compare-and-set: there
 * is no cross-partition atomicity in Cassandra, and none is needed because each grid's
 * membership and order are its own.
 *
 * Bounds: at most MAX_COLLABORATORS per post, and at most MAX_PENDING_INVITES waiting on one
 * profile (checked before anything is written, and again inside each invited grid's CAS, where
 * an invitation that no longer fits is left out).
 */
import type { ServiceDeps } from '../deps.js';
import { DomainError } from '../../domain/errors.js';
import { idToDate } from '../../domain/ids.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { PostRecord } from '../../store/posts-store.js';
import type { GridPlanner, WriteOptions } from '../write/grid-writer.js';
import { removalPlanner } from '../write/post-removal.js';
import { dropUncommittedBody, newPostPlanner, withPostId, type NewPost } from './posts.js';

export const MAX_COLLABORATORS = 5;
export const MAX_PENDING_INVITES = 50;

export interface CollabPostResult {
  readonly post: PostRecord;
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

/** Creates a post on the author's grid and invites each collaborator. */
export async function createCollabPost(
  deps: ServiceDeps,
  authorId: bigint,
  input: NewPost & { readonly collaborators: readonly bigint[] },
  options: WriteOptions = {},
): Promise<CollabPostResult> {
  assertCollaborators(authorId, input.collaborators);
  for (const c of input.collaborators) {
    if ((await pendingInvites(deps, c)) >= MAX_PENDING_INVITES) {
      throw new DomainError('conflict', `profile ${c} has too many pending invitations`, {
        profile_id: c.toString(),
      });
    }
  }
  const postId = deps.nextId();
  const post: PostRecord = {
    postId,
    authorId,
    caption: input.caption,
    mediaUrl: input.mediaUrl,
    createdAt: idToDate(postId),
    collaborators: [...input.collaborators],
  };
  await deps.posts.insertPost(post);
  // The author's grid carries the request's idempotency ticket (options); the planner result
  // names the post so a replay can answer with it.
  let out;
  try {
    out = await deps.writer.writeGrid(
      authorId,
      withPostId(newPostPlanner(deps, postId, authorId), postId),
      options,
    );
  } catch (err) {
    await dropUncommittedBody(deps, authorId, postId, err);
    throw err;
  }
  for (const profileId of input.collaborators) {
    await deps.writer.writeGrid(profileId, invitePlanner(deps, postId, authorId));
  }
  return { post, version: out.version, generation: out.generation };
}

/** Pending invitations on a grid (rolled forward first, so the count is that version's). */
async function pendingInvites(deps: ServiceDeps, profileId: bigint): Promise<number> {
  await deps.reader.readHead(profileId); // rolls the grid forward
  return (await deps.invites.list(profileId, MAX_PENDING_INVITES + 1)).length;
}

function invitePlanner(
  deps: ServiceDeps,
  postId: bigint,
  authorId: bigint,
): GridPlanner<{ invited: boolean }> {
  return async ({ profileId }) => {
    const [invited, onGrid, pending] = await Promise.all([
      deps.invites.get(profileId, postId),
      deps.store.hasGridRow(profileId, postId),
      deps.invites.list(profileId, MAX_PENDING_INVITES),
    ]);
    const post = await deps.posts.getPost(postId); // the removal fence, read after the snapshot
    if (invited || onGrid || !post || post.removedAt || pending.length >= MAX_PENDING_INVITES) {
      return { kind: 'skip', result: { invited: false } };
    }
    const effects: MembershipOp[] = [{ op: 'invite_put', postId, authorId }];
    return { kind: 'write', mutation: { effects }, result: { invited: true } };
  };
}

export interface InviteAnswer {
  /** False when it was already accepted (accept) — nothing written. */
  readonly changed: boolean;
}

/** Accepts an invitation: the post joins the collaborator's grid (its chronological place). */
export function acceptInvite(
  deps: ServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  return deps.writer.writeGrid<InviteAnswer>(
    profileId,
    async () => {
      const [invite, onGrid] = await Promise.all([
        deps.invites.get(profileId, postId),
        deps.store.hasGridRow(profileId, postId),
      ]);
      if (!invite) {
        if (onGrid) return { kind: 'skip', result: { changed: false } };
        throw noInvite(postId);
      }
      const post = await deps.posts.getPost(postId);
      if (!post || post.removedAt) throw noInvite(postId);
      const effects: MembershipOp[] = [
        { op: 'invite_drop', postId },
        { op: 'grid_put', postId, authorId: invite.authorId },
      ];
      return { kind: 'write', mutation: { effects }, result: { changed: true } };
    },
    options,
  );
}

/** Declines an invitation; the post's collaborator list no longer names this profile. */
export async function declineInvite(
  deps: ServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  const out = await deps.writer.writeGrid<InviteAnswer>(
    profileId,
    async () => {
      if (!(await deps.invites.get(profileId, postId))) throw noInvite(postId);
      const effects: MembershipOp[] = [{ op: 'invite_drop', postId }];
      return { kind: 'write', mutation: { effects }, result: { changed: true } };
    },
    options,
  );
  await dropFromCollaborators(deps, postId, profileId);
  return out;
}

const noInvite = (postId: bigint) =>
  new DomainError('post_not_found', 'no pending invitation for this post', {
    post_id: postId.toString(),
  });

export interface PendingInvite {
  readonly post: PostRecord;
  readonly authorId: bigint;
}

/** The profile's pending invitations, newest post first. */
export async function listInvites(deps: ServiceDeps, profileId: bigint): Promise<PendingInvite[]> {
  await deps.reader.readHead(profileId); // rolls the grid forward
  const invites = await deps.invites.list(profileId, MAX_PENDING_INVITES);
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
 * collaborator's grid changes (row, invitation or archive record: post-removal.ts).
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
  const out = await deps.writer.writeGrid(collaboratorId, removalPlanner(deps, postId), options);
  await dropFromCollaborators(deps, postId, collaboratorId);
  return out;
}

async function dropFromCollaborators(deps: ServiceDeps, postId: bigint, collaboratorId: bigint) {
  const post = await deps.posts.getPost(postId);
  if (!post || !post.collaborators.includes(collaboratorId)) return;
  await deps.profiles.setCollaborators(
    postId,
    post.collaborators.filter((p) => p !== collaboratorId),
  );
}

/** Takes `postId` off one grid in every form it has there (used by takedown). */
export function removeFromGrid(deps: ServiceDeps, profileId: bigint, postId: bigint) {
  return deps.writer.writeGrid(profileId, removalPlanner(deps, postId));
}
