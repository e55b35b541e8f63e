/**
 * Lua scripts the cache runs atomically inside Redis, registered on the client with
 * `defineCommand` (ioredis sends EVALSHA and falls back to EVAL after a SCRIPT FLUSH).
 *
 * All keys a script touches belong to one profile and share its hash tag (see keys.ts), so each
 * runs on a Redis Cluster unchanged: one slot, one master. READ_PAGE reads the page its summary
 * names without declaring it (it is only known inside the script); that is allowed because the
 * key carries the same tag, i.e. the same slot on the same node.
 */
import type { RedisClient } from './redis-client.js';

/**
 * The rendered first page of the summary's state in one round trip (grid-cache.ts). The summary
 * is decoded here, once (codec.ts `encodeSummary` wrote it): the reply carries its generation
 * and version, so the caller parses nothing but two decimal strings.
 * KEYS[1] = summary; ARGV[1] = suffix of the page's key after the state's (`:l{limit}:c{key}`).
 * Returns {generation, version, rendering}, or nil: no summary, a summary that does not decode
 * (overwritten by the next fill), or no page of its state.
 */
const READ_PAGE = `
local function id(n)
  local digits = type(n) == 'string' and string.match(n, '^%-?(%d+)$')
  return digits and #digits <= 20
end
local s = redis.call('GET', KEYS[1])
if not s then return false end
local ok, d = pcall(cjson.decode, s)
if not ok or type(d) ~= 'table' or type(d.k) ~= 'string' or not id(d.g) or not id(d.v) then
  return false
end
local p = redis.call('GET', d.k .. ARGV[1])
if not p then return false end
return {d.g, d.v, p}
`;

/**
 * A lease holder's write (memcache's stale-set protection). The page is written whatever
 * happens, because it is keyed by the state it was read at and so can only be right; the summary
 * is written only while the caller's lease token is still the current one. A writer's
 * invalidation deletes the lease, so a filler that read the grid before that write can no longer
 * publish its (older) summary.
 * KEYS[1] = lease, KEYS[2] = summary, KEYS[3] = page.
 * ARGV = token, summary value, summary TTL s, page value, page TTL s. Returns 1 if published.
 */
const PUBLISH_FILL = `
redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5])
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('DEL', KEYS[1])
return 1
`;

/** Gives a lease back if it is still ours. KEYS[1] = lease, ARGV[1] = token. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface CacheCommands {
  regridReadPage(summaryKey: string, suffix: string): Promise<[string, string, string] | null>;
  regridPublishFill(
    leaseKey: string,
    summaryKey: string,
    pageKey: string,
    token: string,
    summary: string,
    summaryTtlS: number,
    page: string,
    pageTtlS: number,
  ): Promise<number>;
  regridRelease(leaseKey: string, token: string): Promise<number>;
}

/**
 * Registers the scripts once per client and returns the client typed with them. `defineCommand`
 * puts each command on the client itself, so the client says whether it was done (no registry).
 */
export function withCacheCommands(client: RedisClient): RedisClient & CacheCommands {
  if (!('regridReadPage' in client)) {
    client.defineCommand('regridReadPage', { numberOfKeys: 1, lua: READ_PAGE });
    client.defineCommand('regridPublishFill', { numberOfKeys: 3, lua: PUBLISH_FILL });
    client.defineCommand('regridRelease', { numberOfKeys: 1, lua: RELEASE });
  }
  return client as RedisClient & CacheCommands;
}
