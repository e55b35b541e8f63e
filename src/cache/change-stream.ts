/**
 * The change stream's Redis side (docs/integration.md "Change stream"): per shard a stream of
 * events, a hash of the highest version published per profile (the watermark) and a sorted set
 * of pending marks (a writer's "this grid may get versions nobody published yet", set before its
 * compare-and-set, scored by the time it was set). The three keys of a shard share the hash tag
 * `{<shard>}`, so every script below touches one slot: legal on a Redis Cluster, where the shards
 * spread over the masters. A profile always maps to one shard: its events keep their order.
 */
import type { RedisClient } from './redis-client.js';

export interface StreamKeys {
  readonly stream: string;
  readonly watermarks: string;
  readonly pending: string;
}

export const shardOf = (profileId: bigint, shards: number): number =>
  Number(profileId % BigInt(shards));

export function streamKeys(prefix: string, shard: number): StreamKeys {
  const stream = `${prefix}changes:{${shard}}`;
  return { stream, watermarks: `${stream}:published`, pending: `${stream}:pending` };
}

/**
 * Publishes a profile's events above its watermark and advances it, atomically.
 * KEYS: stream, watermarks, pending. ARGV: profile ID, MAXLEN, force ('1': publish whatever is
 * above the watermark even if versions before the first one given were never published: a
 * roll-forward that found them gone), '' to clear the marks or a time (ms) to keep them with
 * that score (the writer has more rounds of the grid coming), the marks (count, then members),
 * then the events
 * as (version, json) pairs, oldest first. Versions travel as decimal strings; Lua compares them
 * as numbers (exact below 2^53) and stores the string it was given.
 * Returns {published, watermark after, watermark before}; published = -1 (nothing written) when the first version given is
 * above watermark + 1 and force is not set: a gap the caller fills from the change log.
 */
const PUBLISH = `
local pid = ARGV[1]
local wmStr = redis.call('HGET', KEYS[2], pid) or '0'
local wm = tonumber(wmStr)
local keep = ARGV[4]
local nmarks = tonumber(ARGV[5])
local base = 6 + nmarks
local first = tonumber(ARGV[base])
if first ~= nil and ARGV[3] ~= '1' and first > wm + 1 then return {-1, wmStr, wmStr} end
local added = 0
local top, topStr = wm, wmStr
for i = base, #ARGV - 1, 2 do
  local v = tonumber(ARGV[i])
  if v > top then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[i + 1])
    top, topStr = v, ARGV[i]
    added = added + 1
  end
end
if added > 0 then redis.call('HSET', KEYS[2], pid, topStr) end
for i = 6, base - 1 do
  if keep == '' then redis.call('ZREM', KEYS[3], ARGV[i])
  else redis.call('ZADD', KEYS[3], 'XX', keep, ARGV[i]) end
end
return {added, topStr, wmStr}
`;

export interface ChangeCommands {
  regridPublishChanges(
    stream: string,
    watermarks: string,
    pending: string,
    ...argv: string[]
  ): Promise<[number, string, string]>;
}

const registered = new WeakSet<RedisClient>();

export function withChangeCommands(client: RedisClient): RedisClient & ChangeCommands {
  if (!registered.has(client)) {
    client.defineCommand('regridPublishChanges', { numberOfKeys: 3, lua: PUBLISH });
    registered.add(client);
  }
  return client as RedisClient & ChangeCommands;
}

/** A pending mark's member: the profile, then what makes it unique (process, batch). */
export const markMember = (profileId: bigint, token: string): string => `${profileId}|${token}`;
export const profileOfMark = (member: string): bigint | undefined => {
  const id = member.split('|')[0];
  return id && /^[0-9]+$/.test(id) ? BigInt(id) : undefined;
};
