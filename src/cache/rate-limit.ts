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
 * Moves of one profile that arrive together share one script call (rate-credits.ts), which asks
 * for exactly the slots they need: the log only ever counts moves that were let through.
 */
import { randomBytes } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { cacheKeys } from './keys.js';
import { rateLimited } from '../obs/metrics.js';
import type { RedisGuard } from './redis.js';
import type { RedisClient } from './redis-client.js';
import { creditPolicy, RateCredits } from './rate-credits.js';

/**
 * KEYS[1] = window set. ARGV = limit, window ms, member prefix (unique per call), slots wanted.
 * Grants k = min(wanted, free) slots, members `prefix.1` … `prefix.k`.
 * Returns {k, free slots left, retry-after ms}: when fewer than wanted were granted, the wait until
 * the oldest counted move leaves the window (a slot is free then), ≥ 1; else 0.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local want = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local k = math.max(0, math.min(want, limit - n))
if k > 0 then
  local add = {}
  for i = 1, k do
    add[2 * i - 1] = now
    add[2 * i] = ARGV[3] .. '.' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(add))
  redis.call('PEXPIRE', KEYS[1], window)
end
if k == want then return {k, limit - n - k, 0} end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = window
if oldest[2] then wait = tonumber(oldest[2]) + window - now end
if wait < 1 then wait = 1 end
return {k, 0, wait}
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
  /** Moves refused and failed open, and script calls (one per coalesced request, not per move). */
  readonly stats: { limited: number; failOpen: number; calls: number };
  /** Waits for the requests in flight (shutdown, tests); no slot is ever held, none handed back. */
  flush(): Promise<void>;
}

export interface RateSettings {
  readonly limit: number;
  readonly windowS: number;
  /** The most moves one request carries (rate-credits.ts); default 64, ≤ the limit. */
  readonly maxCredit?: number;
}

interface Waiter {
  resolve(d: RateDecision): void;
  reject(e: unknown): void;
}

export function createMoveRateLimiter(guard: RedisGuard, settings: RateSettings): MoveRateLimiter {
  const stats = { limited: 0, failOpen: 0, calls: 0 };
  const windowMs = settings.windowS * 1000;
  const credits = new RateCredits<Waiter>(creditPolicy(settings.limit, settings.maxCredit));
  // Members are this process's nonce and a call counter: unique without random bytes per move.
  const nonce = randomBytes(6).toString('base64url');
  const serving = new Set<Promise<void>>();
  let calls = 0;
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

  /** One script call for the moves the profile's next request carries. */
  async function ask(profileId: bigint, want: number): Promise<void> {
    const prefix = `${nonce}.${(calls += 1)}`;
    stats.calls += 1;
    const reply = await guard
      .run((c) =>
        commands(c).regridMoveRate(
          cacheKeys.moveRate(profileId),
          settings.limit,
          windowMs,
          prefix,
          want,
        ),
      )
      .catch(() => undefined);
    // No answer, or not the script's (never seen): fail open rather than leave the moves waiting.
    if (!Array.isArray(reply) || reply.length !== 3) {
      const { admitted } = credits.settle(profileId, undefined);
      stats.failOpen += admitted.length;
      for (const w of admitted) w.resolve({ allowed: true, remaining: undefined, retryAfterS: 0 });
      return;
    }
    const [granted, free, waitMs] = reply.map(Number) as [number, number, number];
    const { admitted, refused } = credits.settle(profileId, granted);
    // The moves left in the window after each admitted one: the last admitted sees `free`.
    admitted.forEach((w, i) =>
      w.resolve({ allowed: true, remaining: free + admitted.length - 1 - i, retryAfterS: 0 }),
    );
    if (refused.length === 0) return;
    stats.limited += refused.length;
    rateLimited.inc(refused.length);
    for (const w of refused) w.reject(refusal(waitMs));
  }

  /** Requests for the profile, one after another, until no move of it waits. */
  async function serve(profileId: bigint): Promise<void> {
    // A microtask later: the moves that arrive in the same tick go in the first request.
    await Promise.resolve();
    for (let want = credits.carry(profileId); want > 0; want = credits.carry(profileId)) {
      await ask(profileId, want);
    }
  }

  function consume(profileId: bigint): Promise<RateDecision> {
    return new Promise<RateDecision>((resolve, reject) => {
      if (!credits.arrive(profileId, { resolve, reject })) return;
      const run = serve(profileId);
      serving.add(run);
      void run.finally(() => serving.delete(run));
    });
  }

  async function flush(): Promise<void> {
    while (serving.size > 0) await Promise.all(serving);
  }

  return { consume, stats, flush };
}
