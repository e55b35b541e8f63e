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
 * A profile that moves fast is granted several slots per call and spends them here
 * (rate-credits.ts): one Redis round trip per grant instead of per move.
 */
import { randomBytes } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { cacheKeys } from './keys.js';
import { rateLimited } from '../obs/metrics.js';
import type { RedisGuard } from './redis.js';
import type { RedisClient } from './redis-client.js';
import { creditPolicy, RateCredits, type Refund } from './rate-credits.js';

/**
 * KEYS[1] = window set. ARGV = limit, window ms, member prefix (unique per call), slots wanted.
 * Grants min(wanted, free) slots, members `prefix.1` … `prefix.k`.
 * Returns {granted, free slots left, retry-after ms (when none was granted)}.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  local k = math.min(tonumber(ARGV[4]), limit - n)
  local add = {}
  for i = 1, k do
    add[2 * i - 1] = now
    add[2 * i] = ARGV[3] .. '.' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(add))
  redis.call('PEXPIRE', KEYS[1], window)
  return {k, limit - n - k, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
return {0, 0, wait}
`;

interface RateCommands {
  regridMoveRate(
    key: string,
    limit: number,
    windowMs: number,
    prefix: string,
    want: number,
  ): Promise<number[]>;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly remaining: number | undefined; // undefined when failing open
  readonly retryAfterS: number;
}

export interface MoveRateLimiter {
  /** Counts one move; throws DomainError('rate_limited') with `retry_after_s` when over. */
  consume(profileId: bigint): Promise<RateDecision>;
  /** Refused, failed open, and script calls (one per grant, not per move). */
  readonly stats: { limited: number; failOpen: number; calls: number };
  /** Hands back every slot held here (shutdown, tests). */
  flush(): Promise<void>;
}

export interface RateSettings {
  readonly limit: number;
  readonly windowS: number;
  /** The most slots one grant asks for (rate-credits.ts); default a 16th of the limit, ≤ 16. */
  readonly maxCredit?: number;
  readonly now?: () => number;
}

export function createMoveRateLimiter(guard: RedisGuard, settings: RateSettings): MoveRateLimiter {
  const stats = { limited: 0, failOpen: 0, calls: 0 };
  const windowMs = settings.windowS * 1000;
  const credits = new RateCredits(creditPolicy(settings.limit, windowMs, settings.maxCredit));
  const now = settings.now ?? (() => performance.now());
  // Members are this process's nonce and a call counter: unique without random bytes per move.
  const nonce = randomBytes(6).toString('base64url');
  let calls = 0;
  let sweep: NodeJS.Timeout | undefined;
  const commands = (c: RedisClient) => {
    if (!('regridMoveRate' in c)) {
      c.defineCommand('regridMoveRate', { numberOfKeys: 1, lua: SLIDING_WINDOW });
    }
    return c as RedisClient & RateCommands;
  };
  commands(guard.client);

  const handBack = (r: Refund) =>
    guard.run((c) => c.zrem(cacheKeys.moveRate(r.profileId), ...r.members));

  function scheduleSweep(): void {
    if (sweep || credits.size === 0) return;
    sweep = setTimeout(() => {
      sweep = undefined;
      for (const r of credits.expire(now())) void handBack(r);
      scheduleSweep();
    }, credits.policy.ttlMs);
    sweep.unref();
  }

  async function consume(profileId: bigint): Promise<RateDecision> {
    const t = now();
    const expired = credits.drop(profileId, t);
    if (expired) void handBack(expired);
    const held = credits.take(profileId, t);
    if (held !== undefined) return { allowed: true, remaining: held, retryAfterS: 0 };
    const want = credits.want(profileId, t);
    const prefix = `${nonce}.${(calls += 1)}`;
    stats.calls += 1;
    const reply = await guard.run((c) =>
      commands(c).regridMoveRate(
        cacheKeys.moveRate(profileId),
        settings.limit,
        windowMs,
        prefix,
        want,
      ),
    );
    if (reply === undefined) {
      stats.failOpen += 1;
      return { allowed: true, remaining: undefined, retryAfterS: 0 };
    }
    const [granted, remaining, waitMs] = reply.map(Number) as [number, number, number];
    if (granted > 0) {
      const members = Array.from({ length: granted }, (_, i) => `${prefix}.${i + 1}`);
      credits.grant(profileId, members, remaining, now());
      scheduleSweep();
      return { allowed: true, remaining: remaining + granted - 1, retryAfterS: 0 };
    }
    stats.limited += 1;
    rateLimited.inc();
    const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000));
    throw new DomainError(
      'rate_limited',
      `at most ${settings.limit} moves per ${settings.windowS} s`,
      {
        retry_after_s: retryAfterS,
        limit: settings.limit,
        window_s: settings.windowS,
      },
    );
  }

  async function flush(): Promise<void> {
    clearTimeout(sweep);
    sweep = undefined;
    await Promise.all(credits.expire(Number.POSITIVE_INFINITY).map(handBack));
  }

  return { consume, stats, flush };
}
