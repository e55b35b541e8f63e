/**
 * The reference feed consumer (examples/feed/) behind the real service: regrid in-process (the
 * HTTP app over the migrated test keyspace, publishing its change stream to the shared Redis
 * under this run's own key prefix, with its sweeper), a mixed workload over HTTP on several
 * profiles (creates, moves, pins and unpins, archive and unarchive, deletes, batch orders) while
 * two feed consumers run, then the feeds held to the grids read back from the service: 0
 * duplicate entries, 0 posts re-inserted or re-positioned by a move, every created post in every
 * follower's feed, every archived or deleted post gone.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedConsumer, type FeedStats } from '../../../examples/feed/consumer.js';
import { checkFeeds } from '../../../examples/feed/check.js';
import { feedMember, feedScore } from '../../../examples/feed/decide.js';
import { follow, marksOf, readTimeline } from '../../../examples/feed/graph.js';
import { feedKeysOf, streamKeysOf } from '../../../examples/feed/keys.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';
import { rawRedis } from '../support/tls-clients.js';

const JWT_SECRET = 'feed-e2e-tests-jwt-secret-0123456789';
const PREFIX = `regrid_t_feed:e2e-${randomBytes(4).toString('hex')}:`;
const SHARDS = 4;
const keys = feedKeysOf(`${PREFIX}feed:`);

const SERVICE_SECRET = 'feed-e2e-tests-service-secret-0123456789';
let client: Client;
let guard: RedisGuard;
let raw: Redis;
let service: GridService;
let app: Hono<AppEnv>;
let stopSweeper: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const config = testConfig({
    REDIS_TIMEOUT_MS: '2000',
    CHANGES_KEY_PREFIX: PREFIX,
    CHANGES_STREAM_SHARDS: String(SHARDS),
    CHANGES_SWEEP_INTERVAL_MS: '500',
    CHANGES_SWEEP_AGE_MS: '1000',
  });
  client = await connectTestClient(config);
  guard = createRedisGuard(config);
  await guard.waitReady(5000);
  raw = rawRedis(config);
  service = new GridService({
    cql: cqlOf(client),
    config,
    ids: idsFromWorkers(7860, 10),
    cursorSecret: 'feed-e2e-tests-cursor-secret-0123456789',
    redis: guard,
  });
  const sweeper = service.changes.startSweeper();
  stopSweeper = sweeper ? () => sweeper.stop() : undefined;
  app = createApp({
    service,
    jwtSecret: JWT_SECRET,
    serviceJwtSecret: SERVICE_SECRET,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(client), redis: guard }),
  });
});

afterAll(async () => {
  await stopSweeper?.();
  // Only this run's keys (its own prefix), never a flush.
  let cursor = '0';
  do {
    const [next, found] = await raw.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (found.length > 0) await raw.del(...found);
    cursor = next;
  } while (cursor !== '0');
  raw.disconnect();
  await guard.close();
  await client.shutdown();
});

const randomProfile = (): bigint => (randomBytes(8).readBigUInt64BE() >> 2n) + 1n;

async function call(
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const sent = { authorization: `Bearer ${token}`, ...headers };
  return requestJson(
    app,
    method,
    path,
    sent,
    body === undefined ? undefined : JSON.stringify(body),
  );
}

/** Every post on the profile's grid, read over HTTP page by page. */
async function gridOf(profile: bigint): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${cursor}` : '';
    const page = await requestJson(app, 'GET', `/v1/profiles/${profile}/grid?limit=100${q}`, {});
    expect(page.status).toBe(200);
    for (const item of page.json.items as Array<{ id: string }>) out.add(item.id);
    cursor = page.json.next_cursor;
  } while (cursor);
  return out;
}

interface Tally {
  /** Every post created, and by which profile. */
  created: Map<string, string>;
  /** Times each post entered its grid: its creation, then each unarchive. */
  entered: Map<string, number>;
  archivedOrDeleted: Set<string>;
  ops: Record<string, number>;
}

/** One profile's share of the workload: `writes` random writes over HTTP, one at a time. */
async function drive(profile: bigint, writes: number, seed: number, tally: Tally): Promise<void> {
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const token = await issueToken(JWT_SECRET, profile);
  const archived: string[] = [];
  const ok = (r: JsonReply, what: string) => {
    expect(r.status, `${what}: ${JSON.stringify(r.json)}`).toBeLessThan(300);
    tally.ops[what] = (tally.ops[what] ?? 0) + 1;
  };
  const create = async () => {
    const r = await call(token, 'POST', '/v1/me/posts', { caption: 'feed e2e' });
    ok(r, 'create');
    tally.created.set(r.json.post.id, profile.toString());
    tally.entered.set(r.json.post.id, 1);
  };
  for (let i = 0; i < 4; i++) await create();
  for (let w = 0; w < writes; w++) {
    const order = await call(token, 'GET', '/v1/me/grid/order');
    const pinned: string[] = order.json.pinned;
    const main: string[] = order.json.post_ids.filter((p: string) => !pinned.includes(p));
    const pick = (xs: readonly string[]) => xs[Math.floor(rand() * xs.length)]!;
    const roll = rand();
    if (roll < 0.2 || main.length < 3) await create();
    else if (roll < 0.45) {
      const post = pick(main);
      const after = rand() < 0.3 ? null : pick(main.filter((p) => p !== post));
      ok(await call(token, 'POST', '/v1/me/grid/moves', { post_id: post, after }), 'move');
    } else if (roll < 0.55) {
      const pins = pinned.length > 0 && rand() < 0.5 ? [] : [pick(main)];
      ok(
        await call(token, 'PUT', '/v1/me/grid/pins', { post_ids: pins }),
        pins.length ? 'pin' : 'unpin',
      );
    } else if (roll < 0.65) {
      const post = pick(main);
      ok(await call(token, 'POST', `/v1/me/posts/${post}/archive`), 'archive');
      archived.push(post);
      tally.archivedOrDeleted.add(post);
    } else if (roll < 0.75 && archived.length > 0) {
      const post = archived.splice(Math.floor(rand() * archived.length), 1)[0]!;
      ok(await call(token, 'POST', `/v1/me/posts/${post}/unarchive`, {}), 'unarchive');
      tally.entered.set(post, (tally.entered.get(post) ?? 0) + 1);
    } else if (roll < 0.85) {
      const post = pick(main);
      ok(await call(token, 'DELETE', `/v1/me/posts/${post}`), 'delete');
      tally.archivedOrDeleted.add(post);
    } else {
      // A batch order: the main order with two posts swapped, under the order's ETag.
      const a = Math.floor(rand() * main.length);
      const b = (a + 1 + Math.floor(rand() * (main.length - 1))) % main.length;
      const next = [...main];
      [next[a], next[b]] = [next[b]!, next[a]!];
      const etag = order.headers.get('etag')!;
      const r = await call(
        token,
        'PATCH',
        '/v1/me/grid/order',
        { post_ids: next },
        { 'if-match': etag },
      );
      ok(r, 'batch_order');
    }
  }
}

describe('the reference feed behind the real service', () => {
  it('every created post once in every follower’s feed; moves re-insert nothing; archived and deleted posts gone', async () => {
    const profiles = Array.from({ length: 5 }, randomProfile);
    const followers = ['1', '2', '3'].map((n) => `${randomProfile()}${n}`);
    // Follower i follows profiles i and i+1 (so two followers share every profile), all from
    // version 0 of a fresh grid.
    const graph = new Map(
      followers.map((f, i) => [f, [profiles[i]!, profiles[(i + 1) % profiles.length]!]]),
    );
    graph.get(followers[0]!)!.push(profiles[3]!);
    for (const [f, ps] of graph) {
      for (const p of ps) {
        const head = await service.readHead(p);
        await follow(raw, keys, f, p.toString(), {
          generation: head.generation,
          version: head.version,
        });
      }
    }

    const settings = {
      streamKeys: streamKeysOf(PREFIX, SHARDS),
      group: 'feed',
      count: 20,
      blockMs: 50,
      minIdleMs: 2000,
      claimEveryMs: 500,
      gapTimeoutMs: 600_000,
      audit: true,
    };
    const consumers = ['a', 'b'].map(
      (c) => new FeedConsumer(raw, keys, { ...settings, consumer: c }),
    );
    for (const c of consumers) await c.start();
    let running = true;
    const loops = consumers.map(async (c) => {
      while (running) await c.poll();
    });

    const tally: Tally = {
      created: new Map(),
      entered: new Map(),
      archivedOrDeleted: new Set(),
      ops: {},
    };
    await Promise.all(profiles.map((p, i) => drive(p, 50, 26 + i, tally)));

    // Caught up: every follower's watermark at every followed grid's version.
    const heads = new Map<string, { generation: bigint; version: bigint }>();
    for (const p of profiles) heads.set(p.toString(), await service.readHead(p));
    const caughtUp = async () => {
      for (const [f, ps] of graph) {
        const marks = await marksOf(raw, keys, f);
        for (const p of ps) {
          const head = heads.get(p.toString())!;
          if (marks.get(p.toString())?.version !== head.version) return false;
        }
      }
      return true;
    };
    const t0 = Date.now();
    while (!(await caughtUp())) {
      expect(Date.now() - t0, 'the feed caught up within 60 s').toBeLessThan(60_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    running = false;
    await Promise.all(loops);
    for (const c of consumers) await c.close();

    const grids = new Map<string, Set<string>>();
    for (const p of profiles) grids.set(p.toString(), await gridOf(p));
    let delivered = 0;
    let gone = 0;
    for (const [f, ps] of graph) {
      const timeline = await readTimeline(raw, keys, f);
      const ids = timeline.map((t) => t.postId.toString());
      const expected = new Set(ps.flatMap((p) => [...grids.get(p.toString())!]));
      expect(new Set(ids).size, 'no duplicate feed entries').toBe(ids.length);
      for (const t of timeline) expect(t.score, 'at its creation time').toBe(feedScore(t.postId));
      expect([...ids].sort()).toEqual([...expected].sort());
      const inserts = await raw.hgetall(keys.inserts(f));
      for (const [member, n] of Object.entries(inserts)) {
        const post = BigInt(member).toString();
        // Entered the feed exactly as often as it entered its grid: a move adds nothing.
        expect(Number(n), `inserts of ${post} in ${f}`).toBe(tally.entered.get(post));
      }
      for (const post of ids) expect(tally.created.has(post)).toBe(true);
      // Every post a followed profile created is in the feed unless it was archived or deleted
      // (and not unarchived since); every one that is off its grid now is gone from the feed.
      for (const [post, by] of tally.created) {
        if (!ps.some((p) => p.toString() === by)) continue;
        const onGrid = grids.get(by)!.has(post);
        if (!tally.archivedOrDeleted.has(post)) expect(onGrid, `${post} on its grid`).toBe(true);
        expect(ids.includes(post), `${post} in the feed of ${f}`).toBe(onGrid);
        if (onGrid) delivered += 1;
        else gone += 1;
      }
    }
    const sum = (k: keyof FeedStats) => consumers.reduce((n, c) => n + c.stats[k], 0);
    console.log(
      `[feed e2e] ops ${JSON.stringify(tally.ops)}; consumers: events ${sum('events')} applied ` +
        `${sum('applied')} duplicates ${sum('duplicates')} inserts ${sum('inserts')} removals ` +
        `${sum('removals')} reinserts-refused ${sum('reinsertsRefused')} deferred ${sum('deferred')} ` +
        `gaps-accepted ${sum('gapsAccepted')}; (follower, post) delivered ${delivered}, ` +
        `archived/deleted and gone ${gone}`,
    );
    expect(sum('gapsAccepted')).toBe(0);

    // The CLI's --check says the same, and notices a feed entry that should not be there or is
    // missing or misplaced.
    const follows = [...graph].map(([follower, ps]) => ({
      follower,
      profiles: ps.map(String),
    }));
    // The feed is a platform service: its reads carry its service token (examples/feed/api.ts).
    const token = issueServiceToken(SERVICE_SECRET, 'feed');
    const get = (path: string) =>
      Promise.resolve(app.request(path, { headers: { authorization: `Bearer ${token}` } }));
    const clean = await checkFeeds(raw, keys, get, follows);
    expect(clean).toMatchObject({ missing: 0, extra: 0, misplaced: 0, behind: 0 });
    const f = followers[0]!;
    const [first] = await readTimeline(raw, keys, f);
    await raw.zadd(keys.timeline(f), feedScore(first!.postId) + 1, feedMember(first!.postId));
    await raw.zadd(keys.timeline(f), 1, feedMember(4611686018427387904n));
    expect(await checkFeeds(raw, keys, get, follows)).toMatchObject({ extra: 1, misplaced: 2 });
    await raw.zrem(keys.timeline(f), feedMember(first!.postId));
    expect(await checkFeeds(raw, keys, get, follows)).toMatchObject({ missing: 1, extra: 1 });
    expect(sum('reinsertsRefused')).toBeGreaterThan(0);
    expect(gone).toBeGreaterThan(0);
  });
});
