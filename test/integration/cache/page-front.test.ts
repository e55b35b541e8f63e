/**
 * The page front (http/routes/grid.ts) over a real socket: the app served by @hono/node-server with
 * production's deadlines and request log, the real Cassandra and Redis behind it. The same
 * request is sent twice, first with the process-local tier emptied (so the router and the route
 * answer it, from the Redis tier) and then with the page held (so the front answers it): status,
 * headers and body must be the same bytes, the request counted and logged the same way. Requests
 * the front must leave to the app (min_version above the held state, the kill switch, sampled
 * requests, HEAD, cursors) are answered by the route.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { deadlinesOf } from '../../../src/http/deadline.js';
import { createLogger } from '../../../src/obs/logger.js';
import { httpRequests } from '../../../src/obs/metrics-platform.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { freshProfile, openStores, seedPosts, type Stores } from './harness.js';

const ROUTE = '/v1/profiles/:profile_id/grid';
let s: Stores;
let guard: RedisGuard;
const servers: ServerType[] = [];

beforeAll(async () => {
  s = await openStores();
  guard = createRedisGuard(s.config, { log: () => {} });
  expect(await guard.waitReady(5000)).toBe(true);
});
afterAll(async () => {
  for (const srv of servers) await new Promise<void>((r) => srv.close(() => r()));
  await guard.close();
  await s.close();
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A served app whose route calls are counted (the front answers without one). */
async function serveApp(env: Record<string, string | number> = {}) {
  const config = {
    ...s.config,
    CACHE_LOCAL_TTL_MS: 10_000,
    CACHE_SAMPLE_RATE: 0,
    FLAGS_SCOPE: `test-${randomUUID()}`,
    ...env,
  };
  const service = new GridService({
    cql: cqlOf(s.client),
    config,
    ids: s.ids,
    cursorSecret: 'front-tests-cursor-secret-0123456789',
    redis: guard,
  });
  let routed = 0;
  const read = service.pages.read.bind(service.pages);
  service.pages.read = (...args) => (routed++, read(...args));
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const app = createApp({
    service,
    jwtSecret: 'front-tests-jwt-secret-0123456789ab',
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ready: true, checks: {} }),
    deadlines: deadlinesOf(config),
    logger,
  });
  const server = await new Promise<ServerType>((resolve) => {
    const srv = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(srv));
  });
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  const send = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<Reply>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          const { date: _date, ...rest } = res.headers;
          resolve({ status: res.statusCode ?? 0, headers: rest, body });
        });
      });
      req.on('error', reject);
      req.end();
    });
  return { service, send, lines, routed: () => routed };
}

const counted = async () =>
  (await httpRequests.get()).values
    .filter((v) => v.labels['route'] === ROUTE && v.labels['method'] === 'GET')
    .reduce((n, v) => n + v.value, 0);

describe('the first-page front', () => {
  it('answers exactly what the route answers: 200, 304, min_version met, with and without a request id', async () => {
    const a = await serveApp();
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    const path = `/v1/profiles/${p}/grid?limit=12`;
    await a.send(path); // fills the order cache
    const rendered = await a.send(path); // renders and keeps the page (Redis and local)
    const etag = String(rendered.headers['etag']);
    const version = JSON.parse(rendered.body).grid_version as string;
    expect(posts.length).toBe(30);

    const cases: Array<[string, Record<string, string>]> = [
      [path, { 'x-request-id': 'front-test-200' }],
      [path, { 'x-request-id': 'front-test-304', 'if-none-match': `W/"x", ${etag}` }],
      [`${path}&min_version=${version}`, { 'x-request-id': 'front-test-min' }],
    ];
    for (const [url, headers] of cases) {
      a.service.caches!.rendered!.forget(p, { generation: 0n, version: 0n }); // local tier empty
      const routed = a.routed();
      const before = await counted();
      const viaRoute = await a.send(url, headers);
      expect(a.routed()).toBe(routed + 1);
      const viaFront = await a.send(url, headers);
      expect(a.routed()).toBe(routed + 1); // answered ahead of the router
      expect(viaFront).toEqual(viaRoute);
      expect(await counted()).toBe(before + 2);
      const logged = a.lines.filter((l) => l['req_id'] === headers['x-request-id']);
      expect(logged).toHaveLength(2);
      const { latency_ms: _a, time: _t1, ...routeLine } = logged[0]!;
      const { latency_ms: _b, time: _t2, ...frontLine } = logged[1]!;
      expect(frontLine).toEqual(routeLine);
      expect(frontLine).toMatchObject({
        route: ROUTE,
        method: 'GET',
        path: `/v1/profiles/${p}/grid`,
      });
    }
    const ok = await a.send(path);
    expect(ok.status).toBe(200);
    expect(ok.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-cache',
    });
    const notModified = await a.send(path, { 'if-none-match': etag });
    expect(notModified).toMatchObject({ status: 304, body: '' });
    expect(notModified.headers['etag']).toBe(etag);
    expect(notModified.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(notModified.headers['content-type']).toBe('application/json'); // not text/plain
  });

  it('leaves to the route: min_version above the held state, HEAD, cursors, an ID the route refuses', async () => {
    const a = await serveApp();
    const p = freshProfile(s);
    await seedPosts(s, p, 30);
    const path = `/v1/profiles/${p}/grid?limit=12`;
    await a.send(path);
    const held = JSON.parse((await a.send(path)).body) as {
      grid_version: string;
      next_cursor: string;
    };
    const above = BigInt(held.grid_version) + 1n;
    const routed = a.routed();
    await a.send(`${path}&min_version=${above}`);
    expect((await a.send(path, {}, 'HEAD')).status).toBe(200);
    await a.send(`${path}&cursor=${encodeURIComponent(held.next_cursor)}`);
    expect(a.routed()).toBe(routed + 3);
    const refused = await a.send(`/v1/profiles/0${p}/grid?limit=12`);
    expect(refused.status).toBe(400);
    expect(a.routed()).toBe(routed + 3); // refused before the route reads anything
  });

  it('the kill switch: with reads.overrides off the route answers, chronologically', async () => {
    const a = await serveApp();
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 30);
    await a.service.move(p, posts[0]!, null); // the oldest post on top: not chronological
    const path = `/v1/profiles/${p}/grid?limit=12`;
    await a.send(path);
    const arranged = JSON.parse((await a.send(path)).body) as { items: Array<{ id: string }> };
    expect(arranged.items[0]!.id).toBe(String(posts[0]));
    await a.service.flags.set('reads.overrides', false);
    const routed = a.routed();
    const plain = JSON.parse((await a.send(path)).body) as { items: Array<{ id: string }> };
    expect(a.routed()).toBe(routed + 1);
    expect(plain.items[0]!.id).toBe(String(posts[posts.length - 1])); // newest first
    await a.service.flags.set('reads.overrides', true);
    const back = JSON.parse((await a.send(path)).body) as { items: Array<{ id: string }> };
    expect(back.items[0]!.id).toBe(String(posts[0]));
  });

  it('a request drawn for the sampled checks is read past the tiers, by the route', async () => {
    const a = await serveApp({ CACHE_SAMPLE_RATE: 1, CACHE_SAMPLE_MAX_PER_S: 10_000 });
    const p = freshProfile(s);
    await seedPosts(s, p, 30);
    const path = `/v1/profiles/${p}/grid?limit=12`;
    const stats = a.service.caches!.rendered!.stats;
    const tiers = () => stats.localHits + stats.redisHits + stats.misses;
    const before = tiers();
    const routed = a.routed();
    for (let i = 0; i < 5; i++) expect((await a.send(path)).status).toBe(200);
    expect(a.routed()).toBe(routed + 5);
    expect(tiers()).toBe(before); // never served from (nor looked up in) the tiers
  });
});
