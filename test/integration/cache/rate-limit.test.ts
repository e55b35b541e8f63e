import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createMoveRateLimiter } from '../../../src/cache/rate-limit.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import { DomainError } from '../../../src/domain/errors.js';

const config = loadConfig(process.env, { NODE_ENV: 'test', REDIS_TIMEOUT_MS: '2000' });
const guard = createRedisGuard(config, { log: () => {} });
afterAll(() => guard.close());

const profile = () => BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000));

describe('move rate limiter (shared Redis)', () => {
  it('allows the limit, then refuses with a retry-after inside the window', async () => {
    expect(await guard.waitReady(5000)).toBe(true);
    const limiter = createMoveRateLimiter(guard, { limit: 3, windowS: 30 });
    const p = profile();
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await limiter.consume(p)).remaining);
    expect(remaining).toEqual([2, 1, 0]);
    const err = await limiter.consume(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('rate_limited');
    const after = (err as DomainError).details.retry_after_s as number;
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(30);
    // A refused move does not count: the window still holds exactly 3.
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(3);
    // Other profiles have their own window.
    expect((await limiter.consume(p + 1n)).allowed).toBe(true);
  });

  it('slides: moves older than the window stop counting', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 2, windowS: 1 });
    const p = profile();
    await limiter.consume(p);
    await limiter.consume(p);
    await expect(limiter.consume(p)).rejects.toMatchObject({ code: 'rate_limited' });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await limiter.consume(p)).allowed).toBe(true);
  });

  it('one move after another: one call each, `remaining` counts down, the log holds the moves', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 320, windowS: 60 });
    const p = profile();
    const left: Array<number | undefined> = [];
    for (let i = 0; i < 60; i++) left.push((await limiter.consume(p)).remaining);
    expect(limiter.stats.calls).toBe(60);
    expect(left).toEqual(Array.from({ length: 60 }, (_, i) => 320 - i - 1));
    // Nothing granted ahead: exactly the moves made, with no flush or hand-back.
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(60);
  });

  it('the moves of one tick: the limit admitted, the rest refused with one wait', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 48, windowS: 60 });
    const p = profile();
    const out = await Promise.all(
      Array.from({ length: 60 }, () =>
        limiter.consume(p).then(
          (d) => d.remaining,
          (e: DomainError) => e,
        ),
      ),
    );
    // The admitted count down in arrival order; the refused are the last to arrive.
    expect(out.slice(0, 48)).toEqual(Array.from({ length: 48 }, (_, i) => 48 - i - 1));
    const refused = out.slice(48) as DomainError[];
    expect(refused.map((e) => e.code)).toEqual(Array(12).fill('rate_limited'));
    for (const e of refused) expect(e.details.retry_after_s).toBe(60);
    expect(limiter.stats.limited).toBe(12);
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(48);
  });

  it('never grants more than the limit, however the slots are spread', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 48, windowS: 60 });
    const other = createMoveRateLimiter(guard, { limit: 48, windowS: 60 });
    const p = profile();
    let allowed = 0;
    let refused = 0;
    // Two processes' limiters, 8 concurrent movers each, far more moves than the limit.
    await Promise.all(
      [limiter, other].flatMap((l) =>
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < 12; i++) {
            const ok = await l.consume(p).then(
              () => true,
              (e: unknown) => {
                expect((e as DomainError).code).toBe('rate_limited');
                return false;
              },
            );
            if (ok) allowed += 1;
            else refused += 1;
          }
        }),
      ),
    );
    // Exactly the limit: no slot of the window was left unused or reserved for nothing.
    expect(allowed).toBe(48);
    expect(allowed + refused).toBe(192);
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(allowed);
  });

  it('a few moves, then a burst: nothing refused below the limit, the log holds the moves made', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 120, windowS: 60 });
    const p = profile();
    for (let i = 0; i < 7; i++) await limiter.consume(p);
    const burst = await Promise.all(
      Array.from({ length: 40 }, () =>
        limiter.consume(p).then(
          () => 'ok',
          () => 'refused',
        ),
      ),
    );
    expect(burst.filter((b) => b === 'refused')).toHaveLength(0);
    // At once, not after a hand-back: no slot is reserved beyond the moves that asked.
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(47);
  });

  it('two processes moving one profile below the limit: none refused, the log exact', async () => {
    const a = createMoveRateLimiter(guard, { limit: 120, windowS: 60 });
    const b = createMoveRateLimiter(guard, { limit: 120, windowS: 60 });
    const p = profile();
    let refused = 0;
    // 2 processes × 6 movers × 9 moves = 108 < 120, each mover's moves one after another.
    await Promise.all(
      [a, b].flatMap((l) =>
        Array.from({ length: 6 }, async () => {
          for (let i = 0; i < 9; i++) await l.consume(p).catch(() => (refused += 1));
        }),
      ),
    );
    expect(refused).toBe(0);
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(108);
  });

  it('Retry-After is when the oldest counted move leaves the window, and it is free then', async () => {
    const limiter = createMoveRateLimiter(guard, { limit: 3, windowS: 3 });
    const p = profile();
    const key = `rl:move:{${p}}`;
    const redisNow = async () => {
      const [sec, usec] = await guard.client.time();
      return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    };
    for (let i = 0; i < 3; i++) {
      await limiter.consume(p);
      await new Promise((r) => setTimeout(r, 300));
    }
    const t0 = await redisNow();
    const err = (await limiter.consume(p).catch((e: unknown) => e)) as DomainError;
    const t1 = await redisNow();
    expect(err.code).toBe('rate_limited');
    const [, score] = await guard.client.zrange(key, 0, 0, 'WITHSCORES');
    const leaves = Number(score) + 3000;
    const ra = err.details.retry_after_s as number;
    expect(ra).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((leaves - t1) / 1000)));
    expect(ra).toBeLessThanOrEqual(Math.max(1, Math.ceil((leaves - t0) / 1000)));
    await new Promise((r) => setTimeout(r, ra * 1000));
    expect((await limiter.consume(p)).allowed).toBe(true);
  });

  it('fails open when Redis is unreachable', async () => {
    const dead = createRedisGuard(
      loadConfig({}, { REDIS_URL: 'redis://127.0.0.1:6391', REDIS_TIMEOUT_MS: '50' }),
      { log: () => {} },
    );
    try {
      const limiter = createMoveRateLimiter(dead, { limit: 1, windowS: 60 });
      for (let i = 0; i < 3; i++) expect((await limiter.consume(1n)).allowed).toBe(true);
      expect(limiter.stats.failOpen).toBe(3);
      expect(dead.health()).toBe('degraded');
    } finally {
      await dead.close();
    }
  });
});
