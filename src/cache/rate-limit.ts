/**
 * Per-profile move rate limit: a sliding-window log in Redis (one sorted set per profile, scored
 * by Redis server time so app servers with skewed clocks agree).
 *
 * Sliding log rather than fixed windows: no burst of 2× the limit at a window boundary, and the
 * exact retry-after is known (when the oldest move in the window falls out). Memory is at most
 * MOVE_RATE_LIMIT members per active profile, expiring with the window.
 *
 * One key per profile (`rl:move:{profile}`): on a Redis Cluster the script runs on that slot's
 * master as it is.
 *
 * Fails open: when Redis is down or slow the move is allowed (and counted in `failOpen`). The rate
 * limit protects the override partition from abuse; refusing every move because the cache is
 * down would turn an optimisation's outage into a write outage.
 *
 * One script call per move, which takes the move's slot or refuses it: the log only ever counts
 * moves that were let through, and concurrent moves of one process go out on one connection in
 * arrival order, so the first to arrive are the ones admitted.
 */
import { randomBytes } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { cacheKeys } from './keys.js';
import { rateLimited } from '../obs/metrics.js';
import type { RedisGuard } from './redis.js';
import type { RedisClient } from './redis-client.js';

/**
 * KEYS[1] = window set. ARGV = limit, window ms, member (unique per move).
 * Returns {1, free slots left, 0} when the move took a slot; {0, 0, retry-after ms} when the
 * window is full: the wait until the oldest counted move leaves it (a slot is free then), >= 1.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, limit - n - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = window
if oldest[2] then wait = tonumber(oldest[2]) + window - now end
if wait < 1 then wait = 1 end
return {0, 0, wait}
`;

interface RateCommands {
  regridMoveRate(key: string, limit: number, windowMs: number, member: string): Promise<number[]>;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly remaining: number | undefined; // undefined when failing open
  readonly retryAfterS: number;
}

export interface MoveRateLimiter {
  /** Counts one move; throws DomainError('rate_limited') with `retry_after_s` when over. */
  consume(profileId: bigint): Promise<RateDecision>;
  /** Moves refused and failed open, and script calls (one per move). */
  readonly stats: { limited: number; failOpen: number; calls: number };
}

export interface RateSettings {
  readonly limit: number;
  readonly windowS: number;
}

export function createMoveRateLimiter(guard: RedisGuard, settings: RateSettings): MoveRateLimiter {
  const stats = { limited: 0, failOpen: 0, calls: 0 };
  const windowMs = settings.windowS * 1000;
  // Members are this process's nonce and a call counter: unique without random bytes per move.
  const nonce = randomBytes(6).toString('base64url');
  const commands = (c: RedisClient) => {
    if (!('regridMoveRate' in c)) {
      c.defineCommand('regridMoveRate', { numberOfKeys: 1, lua: SLIDING_WINDOW });
    }
    return c as RedisClient & RateCommands;
  };
  commands(guard.client);

  const refusal = (waitMs: number) =>
    new DomainError('rate_limited', `at most ${settings.limit} moves per ${settings.windowS} s`, {
      // When the oldest counted move leaves the window, in whole seconds, rounded up.
      retry_after_s: Math.max(1, Math.ceil(waitMs / 1000)),
      limit: settings.limit,
      window_s: settings.windowS,
    });

  async function consume(profileId: bigint): Promise<RateDecision> {
    const member = `${nonce}.${(stats.calls += 1)}`;
    const reply = await guard
      .run((c) =>
        commands(c).regridMoveRate(cacheKeys.moveRate(profileId), settings.limit, windowMs, member),
      )
      .catch(() => undefined);
    // No answer, or not the script's (never seen): fail open rather than refuse the move.
    if (!Array.isArray(reply) || reply.length !== 3) {
      stats.failOpen += 1;
      return { allowed: true, remaining: undefined, retryAfterS: 0 };
    }
    const [granted, free, waitMs] = reply.map(Number) as [number, number, number];
    if (granted === 1) return { allowed: true, remaining: free, retryAfterS: 0 };
    stats.limited += 1;
    rateLimited.inc();
    throw refusal(waitMs);
  }

  return { consume, stats };
}
