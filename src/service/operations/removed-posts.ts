/**
 * Final is final (issue 31): a post that was deleted or taken down never joins a grid again
 * under its ID, whoever sends it (a platform's retried PUT, an import rerun).
 *
 * The body's `removed_at` fence guards a removal only while it runs: the removal deletes the body
 * last, and then nothing would remember it. So a removal first writes a record into
 * `removed_posts` (store/removed-posts-store.ts), then fences the body; the record is never
 * deleted. A crash after the record and before the fence leaves the post recorded and on its
 * grids: the removal's retry finishes it, and no register or import can undo it meanwhile.
 *
 * Register and import read the record inside their compare-and-set planner, after the snapshot
 * (as they read the fence), and refuse a recorded post. The removal's compare-and-set on the
 * author's grid always commits a version (`bump`, post-removal.ts), even with nothing to take
 * off: a registration planned before the record was written then loses its compare-and-set and
 * plans again, now seeing the record. Either it committed first (and the removal takes the post
 * off) or it sees the record.
 */
import { DomainError } from '../../domain/errors.js';
import type { PostRecord } from '../../store/posts-store.js';
import type {
  RemovalReason,
  RemovalRecord,
  RemovedPostsStore,
} from '../../store/removed-posts-store.js';
import type { StatementScope } from '../../store/statement-scope.js';

export interface RemovedPorts {
  readonly removed: Pick<RemovedPostsStore, 'record' | 'get'>;
}

/**
 * Records `post`'s removal, before its fence. A fenced body was recorded before it was fenced
 * (the order above), so its retry keeps the first reason; only a fence older than the record
 * table finds none and writes one.
 */
export async function recordRemoval(
  ports: RemovedPorts,
  post: PostRecord,
  reason: RemovalReason,
  scope: StatementScope | undefined,
): Promise<void> {
  if (post.removedAt && (await ports.removed.get(post.postId, scope))) return;
  const at = post.removedAt ?? new Date();
  const record = { postId: post.postId, profileId: post.authorId, reason, removedAt: at };
  await ports.removed.record(record, scope);
}

/** The 410 a removed post's ID answers (`reason`: `deleted` or `taken_down`). */
export function postRemoved(record: RemovalRecord): DomainError {
  const what = record.reason === 'deleted' ? 'deleted' : 'taken down';
  return new DomainError('post_removed', `the post was ${what}; its ID cannot be used again`, {
    post_id: record.postId.toString(),
    reason: record.reason,
  });
}
