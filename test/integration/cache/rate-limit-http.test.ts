/**
 * The move rate limit over real HTTP (docs/cache.md, "Move rate limit"): the service served on a
 * loopback port, real Cassandra (direct, or through a proxy that slows every answer) and the shared
 * Redis, clients on their own keep-alive connections.
 *   - Concurrent first moves of fresh profiles are all admitted (issue #22: 7 of 40 were refused
 *     while the log was full of slots granted ahead and not yet handed back).
 *   - A flood of 2,000 moves on one profile from 50 connections: exactly the limit answers 200,
 *     every other one 429 with the Retry-After the log implies (the oldest move's score + window −
 *     now, rounded up to whole seconds, ≥ 1).
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from 'cassandra-driver';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import type { Config } from '../../../src/config/config.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { createCassandraClient, cqlOf } from '../../../src/store/cassandra.js';
import { TEST_KEYSPACE } from '../support/stores.js';
import { startSlowProxy, type SlowProxy } from '../support/slow-proxy.js';
import { freshProfile, openStores, seedPosts, type Stores } from './harness.js';

const JWT = 'rate-http-tests-jwt-secret-0123456';
const LIMIT = 120;
const WINDOW_S = 60;

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

interface Served {
  readonly service: GridService;
  /** POST /v1/me/grid/moves on one of the pool's connections. */
  move(profileId: bigint, postId: bigint): Promise<{ status: number; retryAfter: string | null }>;
  close(): Promise<void>;
}

/** The real app on an ephemeral port over `client`, reached through `connections` sockets. */
async function served(client: Client, config: Config, connections: number): Promise<Served> {
  const cql = cqlOf(client);
  const service = new GridService({
    cql,
    config,
    ids: s.ids,
    cursorSecret: 'rate-http-cursor-secret-0123456789',
    redis: guard,
  });
  const app = createApp({
    service,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql, redis: guard, timeoutMs: 2000 }),
  });
  let server!: ServerType;
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections, pipelining: 1 });
  const tokens = new Map<bigint, string>();
  return {
    service,
    async move(profileId, postId) {
      let token = tokens.get(profileId);
      if (!token) tokens.set(profileId, (token = await issueToken(JWT, profileId)));
      const res = await pool.request({
        method: 'POST',
        path: '/v1/me/grid/moves',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ post_id: String(postId), after: null }),
      });
      await res.body.text();
      const retry = res.headers['retry-after'];
      return { status: res.statusCode, retryAfter: typeof retry === 'string' ? retry : null };
    },
    async close() {
      await pool.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const rateConfig = (): Config => ({
  ...s.config,
  MOVE_RATE_LIMIT: LIMIT,
  MOVE_RATE_WINDOW_S: WINDOW_S,
});

const tally = (statuses: readonly number[]) => {
  const out: Record<number, number> = {};
  for (const st of statuses) out[st] = (out[st] ?? 0) + 1;
  return out;
};

/**
 * 40 moves on each of 8 fresh profiles, all profiles at once: the first `warm` of each profile one
 * after another, the rest concurrently. The profiles' logs are sampled all along: the most members
 * each held at any time, and what each holds at the end.
 */
async function burstOfFreshProfiles(api: Served, warm = 0) {
  const profiles = Array.from({ length: 8 }, () => freshProfile(s));
  const posts = await Promise.all(profiles.map((p) => seedPosts(s, p, 8)));
  const keys = profiles.map((p) => `rl:move:{${p}}`);
  const most = keys.map(() => 0);
  const sample = async () => {
    const n = await Promise.all(keys.map((k) => guard.client.zcard(k)));
    n.forEach((c, i) => (most[i] = Math.max(most[i]!, c)));
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) await Promise.all([sample(), new Promise((r) => setTimeout(r, 2))]);
  })();
  const replies = await Promise.all(
    profiles.map(async (p, i) => {
      const out = [];
      for (let k = 0; k < warm; k++) out.push(await api.move(p, posts[i]![k % 8]!));
      const burst = Array.from({ length: 40 - warm }, (_, k) => api.move(p, posts[i]![k % 8]!));
      return [...out, ...(await Promise.all(burst))];
    }),
  );
  sampling = false;
  await sampler;
  await sample();
  const logs = await Promise.all(keys.map((k) => guard.client.zcard(k)));
  return { statuses: tally(replies.flat().map((r) => r.status)), most, logs };
}

describe('move rate limit over HTTP', () => {
  it('40 concurrent moves on each of 8 fresh profiles: 0 × 429, each log holds its 40', async () => {
    const api = await served(s.client, rateConfig(), 320);
    try {
      const { statuses, most, logs } = await burstOfFreshProfiles(api);
      expect(statuses).toEqual({ 200: 320 });
      // The log counts the moves made, never slots granted ahead of them.
      expect({ most, logs }).toEqual({ most: Array(8).fill(40), logs: Array(8).fill(40) });
    } finally {
      await api.close();
    }
  });

  it('a few moves one after another, then the rest of 40 at once: 0 × 429 on 8 profiles', async () => {
    const api = await served(s.client, rateConfig(), 320);
    try {
      const { statuses, most, logs } = await burstOfFreshProfiles(api, 7);
      expect(statuses).toEqual({ 200: 320 });
      expect({ most, logs }).toEqual({ most: Array(8).fill(40), logs: Array(8).fill(40) });
    } finally {
      await api.close();
    }
  });

  describe('with Cassandra slowed (every answer 40 ms late through a proxy)', () => {
    let proxy: SlowProxy;
    let slow: Client;
    beforeAll(async () => {
      proxy = await startSlowProxy(
        {
          host: s.config.CASSANDRA_CONTACT_POINTS[0] ?? '127.0.0.1',
          port: s.config.CASSANDRA_PORT,
        },
        40,
      );
      slow = createCassandraClient(s.config, {
        keyspace: TEST_KEYSPACE,
        contactPoints: [`127.0.0.1:${proxy.port}`],
        port: proxy.port,
      });
      await slow.connect();
    });
    afterAll(async () => {
      await slow?.shutdown();
      await proxy?.close();
    });

    it('the same bursts: 0 × 429 and no slot held ahead while each move waits on the store', async () => {
      // The proxy is real: a statement through it takes at least two delayed hops.
      const t0 = performance.now();
      await slow.execute('SELECT release_version FROM system.local');
      expect(performance.now() - t0).toBeGreaterThanOrEqual(80);
      // A queue of 40 moves on a slow grid may wait past the 2 s admission bound (503 contention,
      // the write path's own shedding, not what this test is about): give it room.
      const api = await served(slow, { ...rateConfig(), WRITE_QUEUE_MAX_WAIT_MS: 20_000 }, 320);
      try {
        for (const warm of [0, 7]) {
          const { statuses, most, logs } = await burstOfFreshProfiles(api, warm);
          expect(statuses).toEqual({ 200: 320 });
          expect({ most, logs }).toEqual({ most: Array(8).fill(40), logs: Array(8).fill(40) });
        }
      } finally {
        await api.close();
      }
    });
  });

  it('2,000 moves on one profile from 50 connections: the limit answers 200, the rest a truthful 429', async () => {
    const api = await served(s.client, rateConfig(), 50);
    const p = freshProfile(s);
    const posts = await seedPosts(s, p, 8);
    // Redis's clock against this process's (one machine: both wall clocks, the offset is small).
    const redisNow = async () => {
      const [sec, usec] = await guard.client.time();
      return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    };
    const before = Date.now();
    const offset = (await redisNow()) - Math.round((before + Date.now()) / 2);
    let next = 0;
    const replies: Array<{ status: number; retryAfter: string | null; sent: number; got: number }> =
      [];
    try {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < 2000) {
            const postId = posts[next++ % 8]!;
            const sent = Date.now() + offset;
            const r = await api.move(p, postId);
            replies.push({ ...r, sent, got: Date.now() + offset });
          }
        }),
      );
    } finally {
      await api.close();
    }
    expect(tally(replies.map((r) => r.status))).toEqual({ 200: LIMIT, 429: 2000 - LIMIT });
    const key = `rl:move:{${p}}`;
    expect(await guard.client.zcard(key)).toBe(LIMIT);
    // The oldest counted move: no member left the log during the flood (it took ≪ the window).
    const [, score] = await guard.client.zrange(key, 0, 0, 'WITHSCORES');
    const leaves = Number(score) + WINDOW_S * 1000;
    const untruthful = replies
      .filter((r) => r.status === 429)
      .filter((r) => {
        const ra = Number(r.retryAfter);
        // Computed by the server between sending and receiving (2 ms of slack for the offset).
        const lo = Math.max(1, Math.ceil((leaves - r.got - 2) / 1000));
        const hi = Math.max(1, Math.ceil((leaves - r.sent + 2) / 1000));
        return !(Number.isInteger(ra) && ra >= lo && ra <= hi);
      });
    expect(untruthful.slice(0, 3)).toEqual([]);
    // And it held: no move sent after a 429 had answered was admitted before that 429's
    // Retry-After was up (a slot freed sooner than it said would make it a lie).
    const refusals = replies.filter((r) => r.status === 429);
    const firstRefusal = Math.min(...refusals.map((r) => r.got));
    const admittedLater = replies.filter((r) => r.status === 200 && r.sent > firstRefusal);
    expect(admittedLater.length).toBe(0);
  });
});
