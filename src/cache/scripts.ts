/**
 * Lua scripts the cache runs atomically inside Redis, registered on the client with
 * `defineCommand` (ioredis sends EVALSHA and falls back to EVAL after a SCRIPT FLUSH).
 *
 * All keys a script touches belong to one profile and share its hash tag (see keys.ts), so each
 * runs on a Redis Cluster unchanged: one slot, one master. READ_FIRST reads the order entry its
 * summary names without declaring it (it is only known inside the script); that is allowed
 * because the key carries the same tag, i.e. the same slot on the same node. Its body prefetch is
 * the one exception, see there.
 */
import type { RedisClient } from './redis-client.js';

/**
 * The hit path in one round trip: the summary, the order entry it names, and the bodies of the
 * pins and of the first ARGV[1] entries of that order (so a first page needs no second trip).
 * KEYS[1] = summary; ARGV[1] = entries whose bodies to include; ARGV[2] = post key prefix.
 * Returns {summary or false, order or false, body or false...} (bodies in pins-then-entries order).
 *
 * The body keys are built here rather than declared in KEYS, which Redis Cluster forbids (they
 * live in other slots): on a cluster grid-cache.ts passes ARGV[1] = 0 and the page read fetches
 * them per master (post-cache.ts, redis-batch.ts).
 */
const READ_FIRST = `
local s = redis.call('GET', KEYS[1])
if not s then return {false, false} end
local ok, d = pcall(cjson.decode, s)
if not ok or type(d) ~= 'table' or type(d.k) ~= 'string' then return {s, false} end
local o = redis.call('GET', d.k)
local n = tonumber(ARGV[1]) or 0
if not o or n <= 0 then return {s, o} end
local ok2, od = pcall(cjson.decode, o)
if not ok2 or type(od) ~= 'table' then return {s, o} end
local keys = {}
if type(od.p) == 'table' then
  for _, p in ipairs(od.p) do keys[#keys + 1] = ARGV[2] .. p end
end
if type(od.e) == 'table' then
  for i, e in ipairs(od.e) do
    if i > n then break end
    keys[#keys + 1] = ARGV[2] .. e[1]
  end
end
local out = {s, o}
if #keys == 0 then return out end
local bodies = redis.call('MGET', unpack(keys))
for i = 1, #keys do out[#out + 1] = bodies[i] end
return out
`;

/**
 * The rendered first page of the summary's state in one round trip (rendered-pages.ts).
 * KEYS[1] = summary; ARGV[1] = suffix of the rendering's key after the order key (`:l{limit}`).
 * Returns {summary or false, rendering or false}.
 */
const READ_PAGE = `
local s = redis.call('GET', KEYS[1])
if not s then return {false, false} end
local ok, d = pcall(cjson.decode, s)
if not ok or type(d) ~= 'table' or type(d.k) ~= 'string' then return {s, false} end
return {s, redis.call('GET', d.k .. ARGV[1])}
`;

/**
 * A lease holder's write (memcache's stale-set protection). The order entry is written whatever
 * happens, because it is keyed by the version it was read at and so can only be right; the summary
 * is written only while the caller's lease token is still the current one. A writer's
 * invalidation deletes the lease, so a filler that read the grid before that write can no longer
 * publish its (older) summary.
 * KEYS[1] = lease, KEYS[2] = summary, KEYS[3] = order entry.
 * ARGV = token, summary value, summary TTL s, order value, order TTL s. Returns 1 if published.
 */
const PUBLISH_FILL = `
redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5])
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * Invalidation (after every grid write): keep a copy of the summary as the "previous" one, then
 * delete the summary and the lease (the delete supersedes any filler's lease). Deleting rather
 * than overwriting makes invalidations commute: they may arrive in any order.
 * KEYS[1] = summary, KEYS[2] = lease, KEYS[3] = previous. ARGV[1] = previous TTL ms.
 */
const INVALIDATE = `
local s = redis.call('GET', KEYS[1])
if s then redis.call('SET', KEYS[3], s, 'PX', ARGV[1]) end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`;

/** Gives a lease back if it is still ours. KEYS[1] = lease, ARGV[1] = token. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface CacheCommands {
  regridReadFirst(
    summaryKey: string,
    bodies: number,
    postPrefix: string,
  ): Promise<Array<string | null>>;
  regridReadPage(summaryKey: string, suffix: string): Promise<Array<string | null>>;
  regridPublishFill(
    leaseKey: string,
    summaryKey: string,
    orderKey: string,
    token: string,
    summary: string,
    summaryTtlS: number,
    order: string,
    orderTtlS: number,
  ): Promise<number>;
  regridRelease(leaseKey: string, token: string): Promise<number>;
  regridInvalidate(
    summaryKey: string,
    leaseKey: string,
    previousKey: string,
    previousTtlMs: number,
  ): Promise<number>;
}

const registered = new WeakSet<RedisClient>();

/** Registers the scripts once per client and returns the client typed with them. */
export function withCacheCommands(client: RedisClient): RedisClient & CacheCommands {
  if (!registered.has(client)) {
    client.defineCommand('regridReadFirst', { numberOfKeys: 1, lua: READ_FIRST });
    client.defineCommand('regridReadPage', { numberOfKeys: 1, lua: READ_PAGE });
    client.defineCommand('regridPublishFill', { numberOfKeys: 3, lua: PUBLISH_FILL });
    client.defineCommand('regridRelease', { numberOfKeys: 1, lua: RELEASE });
    client.defineCommand('regridInvalidate', { numberOfKeys: 3, lua: INVALIDATE });
    registered.add(client);
  }
  return client as RedisClient & CacheCommands;
}
