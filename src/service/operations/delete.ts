/**
 * Deleting a post, by its author: record the removal for good (`removed_posts`: the ID is spent,
 * removed-posts.ts), fence the body (`removed_at`), take the post off every
 * collaborator (its invitation withdrawn, its grid in a compare-and-set when it holds something of
 * the post: invitations.ts), then off the author's grid (post-removal.ts), and drop the body
 * last. A retry after a failure midway finds the fence and the remaining grids and finishes.
 * The body's cache entry is dropped after it (the post cache of src/cache/).
 */
import type { PostCache } from '../../cache/post-cache.js';
import { DomainError } from '../../domain/errors.js';
import type { PostsStore } from '../../store/posts-store.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import type { PostWriteResult } from './create.js';
import { removeFromCollaborator, type WithdrawPorts } from './invitations.js';
import { removalPlanner } from './post-removal.js';
import { recordRemoval, type RemovedPorts } from './removed-posts.js';

export interface DeletePorts extends WithdrawPorts, RemovedPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly posts: Pick<PostsStore, 'getPost' | 'markRemoved' | 'deletePost'>;
  /** Redis's copy of post bodies, when there is one. */
  readonly postCache?: Pick<PostCache, 'forget'> | undefined;
}

export async function deletePost(
  ports: DeletePorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
): Promise<PostWriteResult<null>> {
  const out = await trackOp('delete', () =>
    removePost(ports, profileId, postId, { ...options, op: 'delete' }),
  );
  await ports.postCache?.forget([postId]);
  return out;
}

/** The delete itself (also the unregister's, register.ts): the cache is the caller's. */
export async function removePost(
  ports: DeletePorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
): Promise<PostWriteResult<null>> {
  const { scope } = options;
  const post = await ports.posts.getPost(postId, scope);
  if (post && post.authorId !== profileId) {
    throw new DomainError('forbidden', 'only the author can delete this post', {
      post_id: postId.toString(),
    });
  }
  if (post) await recordRemoval(ports, post, 'deleted', scope); // first: it outlives the body
  if (post && !post.removedAt) await ports.posts.markRemoved(postId, scope);
  for (const collaborator of post?.collaborators ?? []) {
    // the author's post, on the collaborator's grid: the operation, not the request's ticket
    const on = { op: options.op, scope };
    await removeFromCollaborator(ports, collaborator, postId, profileId, on);
  }
  // With a body, the author's grid commits a version even with nothing to take off, so a
  // registration or import planned before the record loses its compare-and-set (removed-posts.ts).
  const remove = removalPlanner(ports, postId, { bump: post !== undefined });
  const out = await ports.writer.writeGrid(
    profileId,
    async (ctx) => {
      const d = await remove(ctx);
      // Nothing of it anywhere and no body: a 404, unless our own timed-out attempt did it.
      if (d.kind === 'skip' && !post && !ctx.outcomeUnknown) {
        throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
      }
      return { ...d, result: null };
    },
    options,
  );
  if (post) await ports.posts.deletePost(postId, [], true, scope);
  return { value: null, version: out.version, generation: out.generation };
}
