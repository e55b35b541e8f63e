/**
 * The change stream's Redis side (docs/integration.md "Change stream"): per shard a stream of
 * events, a hash of the highest version published per profile (the watermark) and a sorted set
 * of pending marks (a writer's "this grid may get versions nobody published yet", set before its
 * compare-and-set, scored by the time it was set). The three keys of a shard share the hash tag
 * `{<shard>}`, so every script below touches one slot: legal on a Redis Cluster, where the shards
 * spread over the masters. A profile always maps to one shard: its events keep their order.
 */
import type { GridVersion } from '../domain/grid-version.js';
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
 * The watermark's stored form: the newest (generation, version) published, `<version>` in
 * generation 1 (the form before generations could change), else `<generation>:<version>`.
 */
export function formatWatermark(w: GridVersion): string {
  return w.generation === 1n ? String(w.version) : `${w.generation}:${w.version}`;
}

/** A stored watermark (undefined: none, or not one of ours). */
export function parseWatermark(raw: string | null | undefined): GridVersion | undefined {
  const m = raw ? /^(?:([0-9]{1,19}):)?([0-9]{1,19})$/.exec(raw) : null;
  if (!m) return undefined;
  return { generation: m[1] === undefined ? 1n : BigInt(m[1]), version: BigInt(m[2]!) };
}

/** The Lua side of formatWatermark / parseWatermark, and the order of (generation, version). */
const WATERMARK_LUA = `
local function parseWm(s)
  local g, v = string.match(s, '^(%d+):(%d+)$')
  if g then return tonumber(g), tonumber(v) end
  return 1, tonumber(s) or 0
end
local function newer(g1, v1, g2, v2) return g1 > g2 or (g1 == g2 and v1 > v2) end
`;

/**
 * Publishes a profile's events above its watermark and advances it, atomically.
 * KEYS: stream, watermarks, pending. ARGV: profile ID, MAXLEN, force ('1': publish whatever is
 * above the watermark even if versions before the first one given were never published: a
 * roll-forward that found them gone), '' to clear the marks or a time (ms) to keep them with
 * that score (the writer has more rounds of the grid coming), the marks (count, then members),
 * then the events as (generation, version, json) triples, oldest first. "Above" orders by
 * generation first: a grid moved to a new generation (its head had lost versions, service/
 * write-line/commit.ts) publishes its versions again under the new one, never deduped away as
 * repeats of the lost ones. Numbers travel as decimal strings; Lua compares them as numbers
 * (exact below 2^53) and stores the strings it was given.
 * Returns {published, watermark after, watermark before}; published = -1 (nothing written) when
 * the first version given is above watermark + 1 in the same or a newer generation and force is
 * not set: a gap the caller fills from the change log.
 */
const PUBLISH = `${WATERMARK_LUA}
local pid = ARGV[1]
local wmStr = redis.call('HGET', KEYS[2], pid) or '0'
local wg, wv = parseWm(wmStr)
local keep = ARGV[4]
local nmarks = tonumber(ARGV[5])
local base = 6 + nmarks
local fg, fv = tonumber(ARGV[base]), tonumber(ARGV[base + 1])
if fg ~= nil and ARGV[3] ~= '1' and fg >= wg and fv > wv + 1 then return {-1, wmStr, wmStr} end
local added = 0
local tg, tv, topStr = wg, wv, wmStr
for i = base, #ARGV - 2, 3 do
  local g, v = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if newer(g, v, tg, tv) then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[i + 2])
    tg, tv = g, v
    if g == 1 then topStr = ARGV[i + 1] else topStr = ARGV[i] .. ':' .. ARGV[i + 1] end
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

/**
 * A writer's mark (before its compare-and-set) and the profile's watermark in one step: what the
 * stream has published is what the writer's head must not be behind (service/write-line/commit.ts).
 * KEYS: pending, watermarks. ARGV: score (ms), member, profile ID. Returns the watermark or false.
 */
const MARK = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[2], ARGV[3])
`;

export interface ChangeCommands {
  regridMark(
    pending: string,
    watermarks: string,
    score: number,
    member: string,
    profileId: string,
  ): Promise<string | null>;
  regridPublishChanges(
    stream: string,
    watermarks: string,
    pending: string,
    ...argv: string[]
  ): Promise<[number, string, string]>;
}

/** As cache/scripts.ts: the commands defined on the client say it was done. */
export function withChangeCommands(client: RedisClient): RedisClient & ChangeCommands {
  if (!('regridMark' in client)) {
    client.defineCommand('regridPublishChanges', { numberOfKeys: 3, lua: PUBLISH });
    client.defineCommand('regridMark', { numberOfKeys: 2, lua: MARK });
  }
  return client as RedisClient & ChangeCommands;
}

/** A pending mark's member: the profile, then what makes it unique (process, batch). */
export const markMember = (profileId: bigint, token: string): string => `${profileId}|${token}`;
export const profileOfMark = (member: string): bigint | undefined => {
  const id = member.split('|')[0];
  return id && /^[0-9]+$/.test(id) ? BigInt(id) : undefined;
};
