/**
 * Rendered first pages (cache/rendered-pages.ts) on the real service, Cassandra and Redis: strong
 * ETags and 304s, the Redis tier shared by two processes (two services) and never serving an old
 * state after a write, own writes visible at once, and min_version honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { freshProfile, openStores, seedPosts } from './harness.js';
import type { Stores } from './harness.js';

const JWT = 'rendered-tests-jwt-secret-0123456789';
const CURSORS = 'rendered-tests-cursor-secret-0123456789';

let s: Stores;
let guard: RedisGuard;
beforeAll(async () => {
  s = await openStores();
  guard = createRedisGuard(s.config, { log: () => {} });
  expect(await guard.waitReady(5000)).toBe(true);
});
afterAll(async () => {
  await guard.close();
  await s.close();
});

/** One "process": a service over the shared Redis and Cassandra. */
function processWith(cursorSecret = CURSORS) {
  const config = s.config;
  const cql = cqlOf(s.client);
  const service = new GridService({ cql, config, ids: s.ids, cursorSecret, redis: guard });
  const app = createApp({
    service,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ready: true, checks: {} }),
  });
  const page = async (profileId: bigint, query = '', headers: Record<string, string> = {}) => {
    const res = await app.request(`/v1/profiles/${profileId}/grid?limit=24${query}`, { headers });
    const text = await res.text();
    return {
      status: res.status,
      etag: res.headers.get('etag'),
      text,
      json: text && JSON.parse(text),
    };
  };
  const move = async (profileId: bigint, postId: bigint, after: bigint | null) => {
    const res = await app.request('/v1/me/grid/moves', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await issueToken(JWT, profileId)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        post_id: String(postId),
        after: after === null ? null : String(after),
      }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { grid_version: string };
  };
  const stats = () => {
    const g = service.caches!.grid.stats;
    return { redisHits: g.hits, misses: g.fills + g.directReads };
  };
  return { service, page, move, stats };
}

const ids = (p: { json: { items: Array<{ id: string }> } }) => p.json.items.map((i) => i.id);

describe('rendered first pages', () => {
  it('carry a strong ETag of the body; If-None-Match answers 304 until the grid changes', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const a = processWith();
    const first = await a.page(p);
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = await a.page(p, '', { 'if-none-match': `W/"other", ${first.etag}` });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await a.page(p, '', { 'if-none-match': '"other"' })).status).toBe(200);
    await a.move(p, posts[0]!, null);
    const after = await a.page(p, '', { 'if-none-match': first.etag! });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(first.etag);
    expect(ids(after)[0]).toBe(String(posts[0]));
    // Later pages get ETags too (rendered per request).
    const next = await a.page(p, `&cursor=${encodeURIComponent(after.json.next_cursor)}`);
    expect(next.status).toBe(200);
    expect(
      (
        await a.page(p, `&cursor=${encodeURIComponent(after.json.next_cursor)}`, {
          'if-none-match': next.etag!,
        })
      ).status,
    ).toBe(304);
  });

  it('the Redis tier serves another process the same bytes, and never an old state after a write', async () => {
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const a = processWith();
    const b = processWith();
    await a.page(p); // fills the order cache
    const rendered = await a.page(p); // an order hit: its rendering is kept under the state
    const fromB = await b.page(p);
    expect(b.stats().redisHits).toBe(1);
    expect(fromB.text).toBe(rendered.text);
    expect(fromB.etag).toBe(rendered.etag);
    for (let i = 0; i < 5; i++) {
      const moved = await b.move(p, posts[i]!, null);
      const seen = await a.page(p); // no min_version: the Redis summary was invalidated
      expect(seen.json.grid_version).toBe(moved.grid_version);
      expect(ids(seen)[0]).toBe(String(posts[i]));
      // The next order hit renders and keeps the new state; the one after reads that rendering.
      const kept = await a.page(p);
      const hits = a.stats().redisHits;
      expect((await a.page(p)).text).toBe(kept.text);
      expect(a.stats().redisHits).toBe(hits + 1);
    }
  });

  it('a process with another cursor secret never serves a rendering whose cursor it cannot verify', async () => {
    const p = freshProfile(s);
    await seedPosts(s, p, 30);
    const a = processWith();
    await a.page(p);
    await a.page(p); // kept in Redis under A's cursor key
    const other = processWith('another-cursor-secret-0123456789abcdef');
    const first = await other.page(p); // A's rendering is not under this process's cursor key
    expect(other.stats()).toMatchObject({ redisHits: 0, misses: 1 });
    const next = await other.page(p, `&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(next.status).toBe(200);
    expect((await other.page(p)).status).toBe(200);
    expect(other.stats().redisHits).toBe(1); // its own rendering, from then on
  });
});
