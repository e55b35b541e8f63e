/**
 * The feed's Lua scripts: one follower's application of one event, and follow/unfollow. Each
 * script touches the keys of one follower only (one hash tag, keys.ts), so it runs atomically on
 * a single Redis and on a Redis Cluster alike: the watermark advances in the same script that
 * changes the timeline, and a redelivered event finds the watermark already past it.
 * The semantics are FeedModel.apply's (model.ts); the integration test compares the two.
 */
import type { Cluster, Redis } from 'ioredis';
import type { FeedKeys } from './keys.js';
import type { ApplyResult } from './model.js';
import { feedMember, feedScore, type PlannedEvent } from './decide.js';

export type FeedRedis = Redis | Cluster;

// Decimal strings compared exactly (versions and generations need not fit a Lua double).
const CMP = `
local function cmp(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end
`;

/**
 * KEYS: following, marks, timeline, sources, refs, by(profile), inserts (all of one follower).
 * ARGV: profile, generation, version, version - 1 ('' for 0), op, audit ('1'), force ('1':
 * apply over a gap, see ConsumerSettings.gapTimeoutMs), then member, score pairs. Returns
 * {verdict, inserted, removed, kept, refused}. The verdict is verdictOf (decide.ts): 'duplicate'
 * and 'gap' change nothing.
 */
const APPLY_EVENT = `${CMP}
local profile, gen, version, prev, op = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if redis.call('SISMEMBER', KEYS[1], profile) == 0 then return {'not_following', 0, 0, 0, 0} end
local mark = redis.call('HGET', KEYS[2], profile)
local verdict = 'apply'
if mark then
  local mg, mv = string.match(mark, '^(%d+):(%d+)$')
  local g = cmp(gen, mg)
  if mv == prev or cmp(version, mv) > 0 then
    verdict = g < 0 and 'duplicate' or (mv == prev and 'apply' or (ARGV[7] == '1' and 'forced' or 'gap'))
  else
    verdict = g > 0 and 'apply' or 'duplicate'
  end
  if verdict ~= 'apply' and verdict ~= 'forced' then return {verdict, 0, 0, 0, 0} end
end
redis.call('HSET', KEYS[2], profile, gen .. ':' .. version)
local inserted, removed, kept, refused = 0, 0, 0, 0
for i = 8, #ARGV, 2 do
  local member, score = ARGV[i], ARGV[i + 1]
  local pair = member .. ':' .. profile
  if op == 'add' then
    if redis.call('HSETNX', KEYS[4], pair, 1) == 1 then
      redis.call('HINCRBY', KEYS[5], member, 1)
      redis.call('SADD', KEYS[6], member)
    end
    if redis.call('ZADD', KEYS[3], 'NX', score, member) == 1 then
      inserted = inserted + 1
      if ARGV[6] == '1' then redis.call('HINCRBY', KEYS[7], member, 1) end
    end
  elseif op == 'remove' then
    if redis.call('HDEL', KEYS[4], pair) == 1 then
      redis.call('SREM', KEYS[6], member)
      if redis.call('HINCRBY', KEYS[5], member, -1) <= 0 then redis.call('HDEL', KEYS[5], member) end
    end
    if redis.call('HEXISTS', KEYS[5], member) == 1 then
      if redis.call('ZSCORE', KEYS[3], member) then kept = kept + 1 end
    else
      removed = removed + redis.call('ZREM', KEYS[3], member)
    end
  elseif redis.call('ZSCORE', KEYS[3], member) then
    refused = refused + 1
  end
end
return {verdict, inserted, removed, kept, refused}
`;

/** KEYS: following, marks. ARGV: profile, baseline ('' or "generation:version"). */
const FOLLOW = `
redis.call('SADD', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
`;

/**
 * KEYS: following, marks, timeline, sources, refs, by(profile). ARGV: profile. Takes the
 * profile's posts out of the timeline unless another followed grid holds them; returns how many
 * left.
 */
const UNFOLLOW = `
local profile = ARGV[1]
local removed = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  if redis.call('HDEL', KEYS[4], member .. ':' .. profile) == 1 then
    if redis.call('HINCRBY', KEYS[5], member, -1) <= 0 then
      redis.call('HDEL', KEYS[5], member)
      removed = removed + redis.call('ZREM', KEYS[3], member)
    end
  end
end
redis.call('DEL', KEYS[6])
redis.call('SREM', KEYS[1], profile)
redis.call('HDEL', KEYS[2], profile)
return removed
`;

/**
 * KEYS: following, marks, timeline, sources, refs, by(profile), inserts (all of one follower).
 * ARGV: profile, watermark ("generation:version"), audit ('1'), then member, score pairs: the
 * profile's whole post set. Makes the follower's share of that profile exactly that set (the
 * repair after a Redis data loss, a 410 or a new generation, examples/feed/store.ts): follows
 * the profile, takes out the posts the set no longer has (unless another followed grid holds
 * them), puts in the missing ones at their creation time, sets the watermark. Returns
 * {inserted, removed}.
 */
const RESYNC = `
local profile = ARGV[1]
local want = {}
for i = 4, #ARGV, 2 do want[ARGV[i]] = ARGV[i + 1] end
redis.call('SADD', KEYS[1], profile)
local inserted, removed = 0, 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  if not want[member] then
    redis.call('SREM', KEYS[6], member)
    if redis.call('HDEL', KEYS[4], member .. ':' .. profile) == 1 then
      if redis.call('HINCRBY', KEYS[5], member, -1) <= 0 then
        redis.call('HDEL', KEYS[5], member)
        removed = removed + redis.call('ZREM', KEYS[3], member)
      end
    end
  end
end
for member, score in pairs(want) do
  if redis.call('HSETNX', KEYS[4], member .. ':' .. profile, 1) == 1 then
    redis.call('HINCRBY', KEYS[5], member, 1)
    redis.call('SADD', KEYS[6], member)
  end
  if redis.call('ZADD', KEYS[3], 'NX', score, member) == 1 then
    inserted = inserted + 1
    if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[7], member, 1) end
  end
end
redis.call('HSET', KEYS[2], profile, ARGV[2])
return {inserted, removed}
`;

interface FeedCommands {
  feedApply(...keysAndArgs: string[]): Promise<[string, number, number, number, number]>;
  feedFollow(...keysAndArgs: string[]): Promise<number>;
  feedUnfollow(...keysAndArgs: string[]): Promise<number>;
  feedResync(...keysAndArgs: string[]): Promise<[number, number]>;
}

const registered = new WeakSet<FeedRedis>();

function commandsOf(redis: FeedRedis): FeedCommands {
  if (!registered.has(redis)) {
    redis.defineCommand('feedApply', { numberOfKeys: 7, lua: APPLY_EVENT });
    redis.defineCommand('feedFollow', { numberOfKeys: 2, lua: FOLLOW });
    redis.defineCommand('feedUnfollow', { numberOfKeys: 6, lua: UNFOLLOW });
    redis.defineCommand('feedResync', { numberOfKeys: 7, lua: RESYNC });
    registered.add(redis);
  }
  return redis as unknown as FeedCommands;
}

export async function applyForFollower(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  event: PlannedEvent,
  audit: boolean,
  force = false,
): Promise<ApplyResult> {
  const version = BigInt(event.version);
  const [verdict, inserted, removed, kept, refused] = await commandsOf(redis).feedApply(
    keys.following(follower),
    keys.marks(follower),
    keys.timeline(follower),
    keys.sources(follower),
    keys.refs(follower),
    keys.by(follower, event.profile),
    keys.inserts(follower),
    event.profile,
    event.generation,
    event.version,
    version > 0n ? (version - 1n).toString() : '',
    event.op,
    audit ? '1' : '0',
    force ? '1' : '0',
    ...event.posts,
  );
  return { verdict: verdict as ApplyResult['verdict'], inserted, removed, kept, refused };
}

export async function followScript(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  profile: string,
  baseline: string,
): Promise<void> {
  await commandsOf(redis).feedFollow(
    keys.following(follower),
    keys.marks(follower),
    profile,
    baseline,
  );
}

export function unfollowScript(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  profile: string,
): Promise<number> {
  return commandsOf(redis).feedUnfollow(
    keys.following(follower),
    keys.marks(follower),
    keys.timeline(follower),
    keys.sources(follower),
    keys.refs(follower),
    keys.by(follower, profile),
    profile,
  );
}

/** Sets the follower's share of one profile to `posts` at `mark` (RESYNC above). */
export async function resyncFollower(
  redis: FeedRedis,
  keys: FeedKeys,
  follower: string,
  profile: string,
  mark: string,
  posts: readonly bigint[],
  audit: boolean,
): Promise<{ inserted: number; removed: number }> {
  const [inserted, removed] = await commandsOf(redis).feedResync(
    keys.following(follower),
    keys.marks(follower),
    keys.timeline(follower),
    keys.sources(follower),
    keys.refs(follower),
    keys.by(follower, profile),
    keys.inserts(follower),
    profile,
    mark,
    audit ? '1' : '0',
    ...posts.flatMap((p) => [feedMember(p), String(feedScore(p))]),
  );
  return { inserted, removed };
}
