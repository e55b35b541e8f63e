/**
 * The feeds held to the grids (main.ts --check): reads every followed profile's grid from a
 * running regrid (GET /v1/profiles/:id/grid, page by page, api.ts readGrid) and compares each follower's timeline
 * with the union of the grids it follows. What the closing note of a load run reports:
 * missing (on a followed grid, not in the feed), extra (in the feed, on no followed grid: an
 * archived or deleted post that stayed, or a re-inserted one), misplaced (not at its creation
 * time), and how many followed grids are at a version the follower has not applied yet.
 */
import { readGrid, type Get } from './api.js';
import { feedScore } from './decide.js';
import { marksOf, readTimeline } from './graph.js';
import type { FeedKeys } from './keys.js';
import type { FeedRedis } from './scripts.js';

export interface FeedCheck {
  readonly followers: number;
  readonly entries: number;
  readonly missing: number;
  readonly extra: number;
  readonly misplaced: number;
  /** (follower, profile) pairs whose watermark is below the grid's version. */
  readonly behind: number;
}

export async function checkFeeds(
  redis: FeedRedis,
  keys: FeedKeys,
  get: Get,
  follows: ReadonlyArray<{ follower: string; profiles: readonly string[] }>,
): Promise<FeedCheck> {
  const grids = new Map<string, { posts: Set<string>; version: bigint }>();
  for (const p of new Set(follows.flatMap((f) => f.profiles))) {
    const grid = await readGrid(get, p);
    grids.set(p, { posts: new Set(grid.posts.map(String)), version: grid.version });
  }
  let entries = 0;
  let missing = 0;
  let extra = 0;
  let misplaced = 0;
  let behind = 0;
  for (const { follower, profiles } of follows) {
    const timeline = await readTimeline(redis, keys, follower);
    const inFeed = new Set(timeline.map((t) => t.postId.toString()));
    const expected = new Set(profiles.flatMap((p) => [...grids.get(p)!.posts]));
    entries += timeline.length;
    missing += [...expected].filter((p) => !inFeed.has(p)).length;
    extra += [...inFeed].filter((p) => !expected.has(p)).length;
    misplaced += timeline.filter((t) => t.score !== feedScore(t.postId)).length;
    const marks = await marksOf(redis, keys, follower);
    behind += profiles.filter((p) => (marks.get(p)?.version ?? 0n) < grids.get(p)!.version).length;
  }
  return { followers: follows.length, entries, missing, extra, misplaced, behind };
}
