/**
 * Collaborative posts (issue 3, design §3.1 and §5.2). A post with collaborators has a row in the
 * time-ordered grid of its author AND of each collaborator, and each grid orders it on its own
 * (overrides are per profile; a move on one grid never touches another). Every grid that changes
 * is bumped in its own compare-and-set through writeGrid: there is no cross-partition atomicity
 * in Cassandra, and none is needed because each grid's order is independent.
 *
 * Order of writes, for crash safety: the post body and all its grid rows first (one logged
 * batch), then the author's grid, then each collaborator's. Removing a collaborator removes that
 * grid's row, bumps that grid (dropping its override and pin), and rewrites the body's
 * collaborator set last. Deleting or taking down a collaborative post removes it from every grid
 * the same way.
 */
import { DomainError } from '../domain/errors.js';
import { idToDate } from '../domain/ids.js';
import type { PostRecord } from '../store/posts-store.js';
import type { ProfilesStore } from '../store/profiles-store.js';
import type { GridPlanner, WriteOptions } from './grid-writer.js';
import { SimulatedCrash } from './idempotency.js';
import { withPostCount } from './post-count.js';
import { newPostPlanner, type NewPost, type PostsServiceDeps } from './posts-service.js';

export const MAX_COLLABORATORS = 5;

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

/** Creates a post on the author's grid and on each collaborator's grid. */
export async function createCollabPost(
  deps: PostsServiceDeps,
  authorId: bigint,
  input: NewPost & { readonly collaborators: readonly bigint[] },
  options: WriteOptions = {},
): Promise<CollabPostResult> {
  assertCollaborators(authorId, input.collaborators);
  const postId = deps.nextId();
  const post: PostRecord = {
    postId,
    authorId,
    caption: input.caption,
    mediaUrl: input.mediaUrl,
    createdAt: idToDate(postId),
    collaborators: [...input.collaborators],
  };
  await deps.posts.insertPost(post, [authorId, ...input.collaborators]);
  // The author's grid carries the request's idempotency ticket (options); the planner result
  // names the post so a replay can answer with it.
  let out;
  try {
    out = await deps.writer.writeGrid(
      authorId,
      withPostId(newPostPlanner(deps, postId), postId),
      options,
    );
  } catch (err) {
    // This attempt's post was never counted on the author's grid: take it back out everywhere
    // (as createPost does) so a retry leaves no duplicate. That includes an idempotent replay:
    // the request committed earlier under ANOTHER post ID. A simulated crash cleans nothing.
    if (!(err instanceof SimulatedCrash)) {
      await deps.posts
        .deletePost(postId, [authorId, ...input.collaborators])
        .catch(() => undefined);
    }
    throw err;
  }
  for (const profileId of input.collaborators) {
    await deps.writer.writeGrid(profileId, newPostPlanner(deps, postId));
  }
  return { post, version: out.version, generation: out.generation };
}

/** Adds `postId` to a planner's result (for the response a replay renders). */
function withPostId<R extends object>(
  planner: GridPlanner<R>,
  postId: bigint,
): GridPlanner<R & { postId: bigint }> {
  return async (ctx) => {
    const d = await planner(ctx);
    return { ...d, result: { ...d.result, postId } };
  };
}

/**
 * Removes `collaboratorId` from the post: by the author, or by the collaborator leaving. Only the
 * collaborator's grid changes (and is bumped); the author's grid is untouched.
 */
export async function removeCollaborator(
  deps: PostsServiceDeps & { readonly profiles: ProfilesStore },
  actorId: bigint,
  postId: bigint,
  collaboratorId: bigint,
  options: WriteOptions = {},
) {
  const post = await deps.posts.getPost(postId);
  if (!post)
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
  // collaborator listed and finishes (removeFromGrid skips what is already gone).
  const out = await removeFromGrid(deps, collaboratorId, postId, options);
  await deps.profiles.setCollaborators(
    postId,
    post.collaborators.filter((p) => p !== collaboratorId),
  );
  return out;
}

/**
 * Takes `postId` off one grid: grid row first, then the CAS that drops its override and pin.
 * Idempotent: a grid the post already left is still bumped only if something remained there.
 */
export async function removeFromGrid(
  deps: PostsServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  const hadRow = await deps.store.hasGridRow(profileId, postId);
  if (hadRow) await deps.posts.deletePost(postId, [profileId], false);
  return deps.writer.writeGrid(
    profileId,
    async (ctx) => {
      const { snapshot } = ctx;
      const hasOverride = snapshot.overrides.some((o) => o.postId === postId);
      const pinned = snapshot.head.pins.includes(postId);
      if (!hadRow && !hasOverride && !pinned) return { kind: 'skip', result: { removed: false } };
      // Removed the row here: -1; finishing an earlier attempt's job: recount (post-count.ts).
      const mutation = await withPostCount(deps.store, ctx, hadRow ? -1n : 'recount', {
        ...(hasOverride ? { deleteRows: [postId] } : {}),
        ...(pinned ? { statics: { pins: snapshot.head.pins.filter((p) => p !== postId) } } : {}),
      });
      return { kind: 'write', mutation, result: { removed: true } };
    },
    options,
  );
}
