/**
 * Moderation takedown: remove a post from every grid it is on or invited to (its author's and
 * each collaborator's), each through the same single version path as user writes (design §3.3:
 * paths that change a grid without a user action must bump the version too, or caches keep
 * serving it).
 *
 * Order: record the removal for good (`removed_posts`: the ID is spent, removed-posts.ts), fence
 * the body, then each grid (post-removal.ts: grid row, archive record, override and pin in one
 * compare-and-set; a collaborator's invitation withdrawn first, invitations.ts), then the body
 * last. A crash midway leaves the record and the fenced body, so running the takedown again
 * finds the same grids and finishes; collaborators' grids already clean are skipped without a
 * bump (the author's always commits one: removed-posts.ts).
 */
import type { PostCache } from '../../cache/post-cache.js';
import { DomainError } from '../../domain/errors.js';
import type { PostsStore } from '../../store/posts-store.js';
import { trackOp } from '../write-line/write-op.js';
import { removeFromCollaborator, type WithdrawPorts } from './invitations.js';
import { removalPlanner } from './post-removal.js';
import { recordRemoval, type RemovedPorts } from './removed-posts.js';
import type { StatementScope } from '../../store/statement-scope.js';

export interface TakedownPorts extends WithdrawPorts, RemovedPorts {
  readonly posts: Pick<PostsStore, 'getPost' | 'markRemoved' | 'deletePost'>;
  /** Redis's copy of post bodies, when there is one: dropped after the body. */
  readonly postCache?: Pick<PostCache, 'forget'> | undefined;
}

export interface TakedownResult {
  readonly postId: bigint;
  /** Grids the post was removed from, with their new versions (unchanged ones omitted). */
  readonly grids: ReadonlyArray<{ readonly profileId: bigint; readonly version: bigint }>;
}

export async function takedownPost(
  ports: TakedownPorts,
  postId: bigint,
  scope?: StatementScope,
): Promise<TakedownResult> {
  const out = await trackOp('takedown', async () => {
    const TAKEDOWN = { op: 'takedown', scope } as const;
    const post = await ports.posts.getPost(postId, scope);
    if (!post)
      throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
    await recordRemoval(ports, post, 'taken_down', scope); // first: it outlives the body
    if (!post.removedAt) await ports.posts.markRemoved(postId, scope);
    const grids: Array<{ profileId: bigint; version: bigint }> = [];
    // A version even with nothing to take off: a registration or import planned before the
    // record must lose its compare-and-set (removed-posts.ts).
    const own = await ports.writer.writeGrid(
      post.authorId,
      removalPlanner(ports, postId, { change: 'taken_down', bump: true }),
      TAKEDOWN,
    );
    if (own.committed) grids.push({ profileId: post.authorId, version: own.version });
    for (const profileId of post.collaborators) {
      const { out } = await removeFromCollaborator(
        ports,
        profileId,
        postId,
        post.authorId,
        TAKEDOWN,
        'taken_down',
      );
      if (out.committed) grids.push({ profileId, version: out.version });
    }
    await ports.posts.deletePost(postId, [], true, scope);
    return { postId, grids };
  });
  await ports.postCache?.forget([postId]);
  return out;
}
