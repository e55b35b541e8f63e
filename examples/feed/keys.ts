/**
 * The feed's Redis keys, and the change stream's shard keys it reads (the contract in
 * docs/integration.md). Every key of one follower carries the follower's ID as a hash tag, so on
 * a Redis Cluster the per-follower scripts (scripts.ts) touch one slot; a profile's follower set
 * is tagged by the profile.
 */

/** `<prefix>changes:{<shard>}` for every shard: the keys the write side XADDs to. */
export const streamKeysOf = (streamPrefix: string, shards: number): string[] =>
  Array.from({ length: shards }, (_, shard) => `${streamPrefix}changes:{${shard}}`);

export interface FeedKeys {
  /**
   * Set once the feed's Redis state was rebuilt from its durable store (store.ts): its absence
   * says Redis lost the feed's data (a restart without persistence, a failover, a flush).
   */
  rebuilt(): string;
  /** Who follows the profile (fan-out list, read outside the scripts). */
  followers(profile: string): string;
  /** The profiles a follower follows (checked inside the scripts). */
  following(follower: string): string;
  /** Hash: followed profile -> "generation:version" the follower has applied. */
  marks(follower: string): string;
  /** Sorted set: the home timeline (score = the post ID's millisecond, member = padded ID). */
  timeline(follower: string): string;
  /** Hash: "member:profile" -> 1 for every followed grid that holds a post in the timeline. */
  sources(follower: string): string;
  /** Hash: member -> how many followed grids hold it (the count of its `sources` fields). */
  refs(follower: string): string;
  /** Set: the members one followed profile contributes (what an unfollow takes out). */
  by(follower: string, profile: string): string;
  /** Hash: member -> how many times it entered the timeline (audit, for tests and the CLI). */
  inserts(follower: string): string;
}

export function feedKeysOf(prefix: string): FeedKeys {
  const user = (f: string, what: string) => `${prefix}u:{${f}}:${what}`;
  return {
    rebuilt: () => `${prefix}rebuilt`,
    followers: (p) => `${prefix}p:{${p}}:followers`,
    following: (f) => user(f, 'following'),
    marks: (f) => user(f, 'marks'),
    timeline: (f) => user(f, 'timeline'),
    sources: (f) => user(f, 'sources'),
    refs: (f) => user(f, 'refs'),
    by: (f, p) => user(f, `by:${p}`),
    inserts: (f) => user(f, 'inserts'),
  };
}
