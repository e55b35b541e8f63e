/**
 * The cache wired into the real service and HTTP app: cached pages equal uncached ones page by
 * page, the move rate limit answers 429 with Retry-After, and with a private Redis hung or killed
 * mid-test, moves and reads keep succeeding straight from Cassandra while /readyz says degraded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import type { Config } from '../../../src/config/config.js';
import { freshProfile, openStores, seedPosts } from './harness.js';
import type { Stores } from './harness.js';
import { startOwnRedis } from './own-redis.js';
import type { OwnRedis } from './own-redis.js';
import { allPages, move, serviceWith as serviceOn } from './service-api.js';
import { testConfig } from '../support/stores.js';

let s: Stores;
beforeAll(async () => {
  s = await openStores();
});
afterAll(() => s.close());

const serviceWith = (config: Config, redis?: RedisGuard) => serviceOn(s, config, redis);

describe('cached reads through the service', () => {
  let guard: RedisGuard;
  beforeAll(async () => {
    guard = createRedisGuard(s.config, { log: () => {} });
    expect(await guard.waitReady(5000)).toBe(true);
  });
  afterAll(() => guard.close());

  it('serve exactly the pages the uncached service serves, before and after moves', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 130);
    const cached = serviceWith(s.config, guard);
    const plain = serviceWith(s.config);
    for (const limit of [24, 48, 100]) {
      expect(await allPages(cached, p, limit)).toEqual(await allPages(plain, p, limit));
    }
    expect((await move(cached, p, posts[10]!, null)).status).toBe(200);
    expect((await move(cached, p, posts[100]!, posts[50]!)).status).toBe(200);
    for (const limit of [24, 48, 100]) {
      const a = await allPages(cached, p, limit);
      expect(a).toEqual(await allPages(plain, p, limit));
      expect(a.flatMap((x) => x.ids)).toHaveLength(130);
      // Again: the first page now comes from Redis, the same bytes.
      expect(await allPages(cached, p, limit)).toEqual(a);
    }
    const stats = cached.service.caches!;
    expect(stats.grid.stats.hits).toBeGreaterThan(0);
    expect(stats.posts.stats.hits).toBeGreaterThan(0);
  });

  it('the mover reads its own write at once (min_version), even when others may lag', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const api = serviceWith(s.config, guard);
    await allPages(api, p, 24); // warm
    const r = await move(api, p, posts[0]!, null);
    expect(r.status).toBe(200);
    const [first] = await allPages(api, p, 24, r.json.grid_version);
    expect(first!.version).toBe(r.json.grid_version);
    expect(first!.ids[0]).toBe(String(posts[0]));
  });

  it('429 with Retry-After once a profile exceeds its move rate', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 5);
    const api = serviceWith({ ...s.config, MOVE_RATE_LIMIT: 3, MOVE_RATE_WINDOW_S: 60 }, guard);
    for (let i = 0; i < 3; i++) expect((await move(api, p, posts[i]!, null)).status).toBe(200);
    const refused = await move(api, p, posts[3]!, null);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // The refused move changed nothing.
    const [first] = await allPages(api, p, 24);
    expect(first!.ids[0]).toBe(String(posts[2]));
  });
});

describe('Redis hung or stopped mid-test (private redis-server)', () => {
  let server: OwnRedis;
  let guard: RedisGuard;
  beforeAll(async () => {
    server = await startOwnRedis(6390);
    // Production-like timeout: every Redis call gives up after 150 ms.
    guard = createRedisGuard(testConfig({ REDIS_URL: server.url }), {
      log: () => {},
    });
    expect(await guard.waitReady(5000)).toBe(true);
  });
  afterAll(async () => {
    // A set-up that failed after starting the server must still stop it (it once outlived the
    // run on 6390, and the next run's server could not bind there).
    await guard?.close();
    await server?.kill();
  });

  it('moves and reads keep working from Cassandra; /readyz reports redis degraded', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 60);
    const api = serviceWith({ ...s.config, REDIS_TIMEOUT_MS: 150 }, guard);
    const caches = api.service.caches!;
    await allPages(api, p, 24);
    await allPages(api, p, 24);
    expect(caches.grid.stats.hits).toBeGreaterThan(0);
    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toEqual({ cassandra: 'ok', redis: 'ok' });

    // Hung: connections stay open, nothing answers.
    server.pause();
    try {
      const m1 = await move(api, p, posts[5]!, null);
      expect(m1.status).toBe(200);
      const [page] = await allPages(api, p, 24, m1.json.grid_version);
      expect(page!.ids[0]).toBe(String(posts[5]));
    } finally {
      server.resume();
    }

    // Stopped.
    await server.kill();
    const directBefore = caches.grid.stats.directReads;
    const m2 = await move(api, p, posts[40]!, null);
    expect(m2.status).toBe(200);
    const pages = await allPages(api, p, 24);
    expect(pages[0]!.ids.slice(0, 2)).toEqual([String(posts[40]), String(posts[5])]);
    expect(pages.flatMap((x) => x.ids)).toHaveLength(60);
    expect(caches.grid.stats.directReads).toBeGreaterThan(directBefore);
    expect(caches.moveRate.stats.failOpen).toBeGreaterThan(0);
    const degraded = await api.call('GET', '/readyz');
    expect(degraded.status).toBe(200);
    expect(degraded.json.checks).toEqual({ cassandra: 'ok', redis: 'degraded' });
  });
});
