/**
 * The chronological media list (design §7.2): a profile's posts by creation time, newest first,
 * with time-based paging, whatever the owner did to the display order. It reads only the
 * time-ordered `grid_posts` partition (post IDs are time-ordered), never the overrides, so no
 * reorder, pin or reset can change what it returns.
 *
 * The grid is rolled forward first (as every grid read is): an archive or removal a crashed writer
 * left half-applied must not leave its post in the list.
 *
 * Bounds: `since` (inclusive) and `until` (exclusive) are instants; `before` is the last post ID of
 * the previous page (exclusive), which pages without losing posts created in the same millisecond.
 */
import type { ServiceDeps } from '../deps.js';
import { lowestIdAt } from '../../domain/ids.js';
import type { PostRecord } from '../../store/posts-store.js';

export interface MediaQuery {
  readonly profileId: bigint;
  readonly sinceMs?: number | undefined;
  readonly untilMs?: number | undefined;
  readonly before?: bigint | undefined;
  readonly limit: number;
}

export interface MediaPage {
  readonly items: readonly PostRecord[];
  /** Pass as `before` for the next page; null when this page is the last. */
  readonly nextBefore: bigint | null;
}

export async function listMedia(deps: ServiceDeps, q: MediaQuery): Promise<MediaPage> {
  await deps.reader.readHead(q.profileId); // rolls the grid forward
  let upper: bigint | undefined = q.before; // exclusive
  if (q.untilMs !== undefined) {
    const u = lowestIdAt(q.untilMs);
    upper = upper === undefined || u < upper ? u : upper;
  }
  const lower = q.sinceMs !== undefined ? lowestIdAt(q.sinceMs) : 0n; // inclusive
  const ids: bigint[] = [];
  let more = false;
  const stream = deps.store.streamChronological(q.profileId, {
    direction: 'desc',
    ...(upper !== undefined ? { from: upper - 1n } : {}),
    pageSize: Math.min(q.limit + 1, 500),
  });
  for await (const id of stream) {
    if (id < lower) break;
    if (ids.length === q.limit) {
      more = true;
      break;
    }
    ids.push(id);
  }
  const bodies = await deps.posts.getPosts(ids);
  const last = ids[ids.length - 1];
  return { items: bodies, nextBefore: more && last !== undefined ? last : null };
}
