/**
 * The move rate limit and Idempotency-Key together (docs/cache.md, "Move rate limit"): a replay of
 * a finished keyed move (same key, same request) answers the stored response without charging the
 * profile's move rate, also when the window is already full; a new key is charged as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { IdempotencyService } from '../../../src/service/idempotency/idempotency.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { IdempotencyStore } from '../../../src/store/idempotency-store.js';
import { freshProfile, openStores, seedPosts, type Stores } from './harness.js';

const JWT = 'rate-replay-tests-jwt-secret-0123';

let s: Stores;
let guard: RedisGuard;
beforeAll(async () => {
  s = await openStores();
  guard = createRedisGuard(s.config, { log: () => {} });
  expect(await guard.waitReady(5000)).toBe(true);
});
afterAll(async () => {
  await guard?.close();
  await s?.close();
});

function api(limit: number) {
  const config = { ...s.config, MOVE_RATE_LIMIT: limit, MOVE_RATE_WINDOW_S: 60 };
  const cql = cqlOf(s.client);
  const service = new GridService({
    cql,
    config,
    ids: s.ids,
    cursorSecret: 'rate-replay-cursor-secret-0123456',
    redis: guard,
  });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: 30_000,
  });
  const app = createApp({
    service,
    idempotency,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql, redis: guard, timeoutMs: 2000 }),
  });
  return async (profileId: bigint, postId: bigint, key: string) => {
    const res = await app.request('/v1/me/grid/moves', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await issueToken(JWT, profileId)}`,
        'content-type': 'application/json',
        'idempotency-key': `"${key}"`,
      },
      body: JSON.stringify({ post_id: String(postId), after: null }),
    });
    return {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed'),
      body: await res.text(),
    };
  };
}

describe('move rate limit with Idempotency-Key', () => {
  it('a replay of a finished move is not charged, even with the window full', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 4);
    const move = api(2);
    const first = await move(p, posts[0]!, 'k-1');
    expect(first.status).toBe(200);
    // Replays answer the stored response and leave the window alone.
    for (let i = 0; i < 3; i++) {
      const again = await move(p, posts[0]!, 'k-1');
      expect(again).toEqual({ ...first, replayed: 'true' });
    }
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(1);
    // The second real move still fits the limit of 2...
    expect((await move(p, posts[1]!, 'k-2')).status).toBe(200);
    // ...a third is refused, yet replays of both earlier moves still answer 200.
    expect((await move(p, posts[2]!, 'k-3')).status).toBe(429);
    expect(await move(p, posts[0]!, 'k-1')).toEqual({ ...first, replayed: 'true' });
    expect((await move(p, posts[1]!, 'k-2')).status).toBe(200);
    expect(await guard.client.zcard(`rl:move:{${p}}`)).toBe(2);
  });
});
