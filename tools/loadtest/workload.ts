/**
 * The move workload, described by indices (profile #, post #, anchor #) rather than IDs so that
 * the same seed produces the same workload for every design; each design maps indices to its own
 * IDs. Post indices follow creation order: post #0 is the oldest (bottom of a fresh grid).
 *
 * Contention is explicit: a share `hot` of the moves goes to the first `hotPosts` posts of
 * profile #0, so concurrent movers keep moving the same posts of the same grid at the same time,
 * which is exactly where delete + insert duplicates a post.
 */
import type { Rng } from './rng.js';

export interface MoveOp {
  readonly profile: number;
  readonly post: number;
  /** The post to place right after, or null for the top of the grid. */
  readonly after: number | null;
  readonly hot: boolean;
}

export interface WorkloadShape {
  readonly profiles: number;
  readonly posts: number;
  readonly hot: number;
  readonly hotPosts: number;
  readonly topShare: number;
}

export function nextMove(rng: Rng, w: WorkloadShape): MoveOp {
  const hot = rng.next() < w.hot;
  const profile = hot ? 0 : rng.int(w.profiles);
  const post = hot ? rng.int(w.hotPosts) : rng.int(w.posts);
  let after: number | null = null;
  if (rng.next() >= w.topShare) {
    // Any other post of the grid; drawing from posts-1 and skipping `post` keeps it uniform.
    const a = rng.int(w.posts - 1);
    after = a >= post ? a + 1 : a;
  }
  return { profile, post, after, hot };
}
