import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import { startOwnRedis } from './own-redis.js';
import type { OwnRedis } from './own-redis.js';

let server: OwnRedis;
let guard: RedisGuard;

beforeAll(async () => {
  server = await startOwnRedis(6392);
  guard = createRedisGuard(
    loadConfig(
      {},
      {
        REDIS_URL: server.url,
        REDIS_TIMEOUT_MS: '100',
        REDIS_BREAKER_FAILURES: '2',
        REDIS_BREAKER_COOLDOWN_MS: '300',
      },
    ),
    { log: () => {} },
  );
  expect(await guard.waitReady(5000)).toBe(true);
});

afterAll(async () => {
  await guard.close();
  await server.kill();
});

describe('Redis guard on a private redis-server', () => {
  it('answers while Redis answers', async () => {
    expect(await guard.run((c) => c.set('k', 'v'))).toBe('OK');
    expect(await guard.run((c) => c.get('k'))).toBe('v');
    expect(guard.health()).toBe('ok');
  });

  it('gives up on a hung Redis instead of waiting, opens the breaker, and recovers', async () => {
    server.pause();
    try {
      expect(await guard.run((c) => c.get('k'))).toBeUndefined();
      expect(await guard.run((c) => c.get('k'))).toBeUndefined();
      expect(guard.health()).toBe('degraded');
      // Breaker open: the call is refused without touching Redis at all.
      let called = false;
      expect(
        await guard.run(async (c) => {
          called = true;
          return c.get('k');
        }),
      ).toBeUndefined();
      expect(called).toBe(false);
    } finally {
      server.resume();
    }
    // After the cool-down the next call probes Redis again and closes the breaker.
    let value: string | null | undefined;
    for (let i = 0; i < 50 && value === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      value = await guard.run((c) => c.get('k'));
    }
    expect(value).toBe('v');
    expect(guard.health()).toBe('ok');
  });

  it('reports degraded and answers undefined once the server is gone', async () => {
    await server.kill();
    for (let i = 0; i < 50 && guard.client.status === 'ready'; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await guard.run((c) => c.get('k'))).toBeUndefined();
    expect(guard.health()).toBe('degraded');
  });
});
