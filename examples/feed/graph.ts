/**
 * The feed's own follow graph and timeline reads. A follow is two writes in two slots (the
 * profile's follower set, then the follower's own set inside FOLLOW): the fan-out reads the first,
 * the per-follower script checks the second, so an event racing a follow or an unfollow is either
 * applied to that follower or answered `not_following`, never half-applied.
 *
 * A follow takes effect from the next event of the profile; it does not backfill older posts (a
 * production feed would read the followee's recent grid once, GET /v1/profiles/:id/grid).
 */
import { formatWatermark, parseWatermark, postIdOfMember, type Watermark } from './decide.js';
import type { FeedKeys } from './keys.js';
import { followScript, unfollowScript, type FeedRedis } from './scripts.js';

/**
 * `baseline`: the profile's (generation, version) the follower starts after, e.g. the grid version
 * read at follow time; without one, the first event the consumer sees for the pair starts it.
 */
export async function follow(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  profile: string,
  baseline?: Watermark,
): Promise<void> {
  await redis.sadd(keys.followers(profile), follower);
  await followScript(redis, keys, follower, profile, baseline ? formatWatermark(baseline) : '');
}

/** Returns how many posts left the follower's timeline. */
export async function unfollow(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  profile: string,
): Promise<number> {
  const removed = await unfollowScript(redis, keys, follower, profile);
  await redis.srem(keys.followers(profile), follower);
  return removed;
}

export const followersOf = (redis: FeedRedis, keys: FeedKeys, profile: string) =>
  redis.smembers(keys.followers(profile));

export interface TimelineEntry {
  readonly postId: bigint;
  readonly score: number;
}

/** The follower's home timeline, newest first. */
export async function readTimeline(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
): Promise<TimelineEntry[]> {
  const flat = await redis.zrevrange(keys.timeline(follower), 0, -1, 'WITHSCORES');
  const out: TimelineEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ postId: postIdOfMember(flat[i]!), score: Number(flat[i + 1]) });
  }
  return out;
}

/** What the follower has applied of each profile it follows (for "has it caught up?"). */
export async function marksOf(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
): Promise<Map<string, Watermark>> {
  const raw = await redis.hgetall(keys.marks(follower));
  const out = new Map<string, Watermark>();
  for (const [profile, text] of Object.entries(raw)) {
    const mark = parseWatermark(text);
    if (mark) out.set(profile, mark);
  }
  return out;
}
