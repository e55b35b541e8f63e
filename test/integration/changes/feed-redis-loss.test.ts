/**
 * The reference feed consumer (examples/feed/) through a Redis data loss (issue 31, item 8): the
 * CLI consumes the change stream of an in-process regrid (on a PRIVATE redis-server this test
 * starts on a free port, never the shared one) while creates, moves and deletes run on 24
 * profiles with followers; then the consumer is frozen (SIGSTOP, so entries sit unread in the
 * stream), every profile gets one more write, the private Redis is SIGKILLed and restarted empty
 * (stream, consumer group, timelines, follow graph in Redis: all gone), the consumer resumes,
 * and writes go on for half of the profiles only: the other half's last versions were in the lost
 * stream alone, so only the catch-up route (GET /v1/profiles/:id/grid/changes) can bring them.
 *
 * What must hold: the consumer does not exit (NOGROUP is handled), every follower's timeline ends
 * equal to the union of the grids it follows, read back from the service (0 missing, 0 extra),
 * and a consumer started again afterwards with `--check` and no `--follow` checks every follower
 * (the follow graph is in the durable store, PostgreSQL, not in the lost Redis).
 *
 * Skipped, saying why, when no PostgreSQL answers at PG_URL (default: the local server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTimeline } from '../../../examples/feed/graph.js';
import { feedKeysOf } from '../../../examples/feed/keys.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { startOwnRedis, type OwnRedis } from '../cache/own-redis.js';
import { postgresDown } from '../support/loadtest.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PG_SCHEMA = `regrid_t_feed_${randomBytes(4).toString('hex')}`;
const JWT_SECRET = 'feed-loss-tests-jwt-secret-0123456789';
const SERVICE_SECRET = 'feed-loss-tests-service-secret-0123456789';
const PREFIX = `regrid_t_feed:loss-${randomBytes(4).toString('hex')}:`;
const FEED_PREFIX = `${PREFIX}feed:`;
const SHARDS = 4;
const PROFILES = 24;
const FOLLOWERS = 12;
const keys = feedKeysOf(FEED_PREFIX);

const down = await postgresDown(PG_URL);
if (down) console.warn(`[feed-redis-loss] skipped: PostgreSQL at ${PG_URL}: ${down}`);

let own: OwnRedis;
let redisPort: number;
let client: Client;
let guard: RedisGuard;
let service: GridService;
let app: Hono<AppEnv>;
let server: ServerType;
let baseUrl: string;
let stopSweeper: (() => Promise<void>) | undefined;
const children: ChildProcess[] = [];

/** A port nobody listens on now (the kernel's pick, released at once). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

beforeAll(async () => {
  if (down) return;
  redisPort = await freePort();
  own = await startOwnRedis(redisPort);
  const config = testConfig({
    REDIS_URL: own.url,
    REDIS_TIMEOUT_MS: '1000',
    CHANGES_KEY_PREFIX: PREFIX,
    CHANGES_STREAM_SHARDS: String(SHARDS),
    CHANGES_SWEEP_INTERVAL_MS: '300',
    CHANGES_SWEEP_AGE_MS: '1000',
  });
  client = await connectTestClient(config);
  guard = createRedisGuard(config);
  await guard.waitReady(5000);
  service = new GridService({
    cql: cqlOf(client),
    config,
    ids: idsFromWorkers(7870, 10),
    cursorSecret: 'feed-loss-tests-cursor-secret-0123456789',
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
  server = await new Promise<ServerType>((resolve) => {
    const srv = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(srv));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (down) return;
  for (const c of children) {
    // Only the consumers this test spawned, by their own PIDs.
    if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) {
      process.kill(c.pid, 'SIGCONT');
      c.kill('SIGKILL');
    }
  }
  await stopSweeper?.();
  // Only a server that was started: a set-up that failed first would otherwise wait here forever.
  if (server) await new Promise((r) => server.close(r));
  await guard?.close();
  await own?.kill();
  await client?.shutdown();
  const sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  await sql.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await sql.end();
});

const randomId = (): bigint => (randomBytes(8).readBigUInt64BE() >> 2n) + 1n;

interface Consumer {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** The CLI as a separate process, on the private Redis, the durable store and the API. */
function startConsumer(args: string[]): Consumer {
  let out = '';
  let err = '';
  // node itself (tsx as its loader), not npx: the PID is the consumer's, so SIGSTOP freezes it.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'examples/feed/main.ts',
      '--redis',
      own.url,
      '--stream-prefix',
      PREFIX,
      '--shards',
      String(SHARDS),
      '--feed-prefix',
      FEED_PREFIX,
      '--block-ms',
      '200',
      '--min-idle-ms',
      '3000',
      '--claim-every-ms',
      '1000',
      '--gap-timeout-ms',
      '3000',
      '--report-every-ms',
      '2000',
      '--json',
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // The durable store and the catch-up route (examples/feed/README.md); the service token
        // in the environment, not on the command line.
        FEED_PG_URL: PG_URL,
        FEED_PG_SCHEMA: PG_SCHEMA,
        FEED_API_URL: baseUrl,
        FEED_SERVICE_TOKEN: issueServiceToken(SERVICE_SECRET, 'feed'),
      },
    },
  );
  children.push(child);
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, stdout: () => out, stderr: () => err };
}

async function call(profile: bigint, method: string, path: string, body?: unknown) {
  const token = await issueToken(JWT_SECRET, profile);
  return requestJson(
    app,
    method,
    path,
    { authorization: `Bearer ${token}` },
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

/** One random write on the profile: a create (or when the grid is short), a move or a delete. */
async function write(profile: bigint, rand: () => number, ops: Record<string, number>) {
  const ok = (r: JsonReply, what: string) => {
    expect(r.status, `${what}: ${JSON.stringify(r.json)}`).toBeLessThan(300);
    ops[what] = (ops[what] ?? 0) + 1;
  };
  const order = await call(profile, 'GET', '/v1/me/grid/order');
  const posts: string[] = order.json.post_ids;
  const roll = rand();
  const pick = () => posts[Math.floor(rand() * posts.length)]!;
  if (roll < 0.4 || posts.length < 3) {
    ok(await call(profile, 'POST', '/v1/me/posts', { caption: 'feed loss' }), 'create');
  } else if (roll < 0.75) {
    const post = pick();
    const after = rand() < 0.3 ? null : (posts.find((p) => p !== post) ?? null);
    ok(await call(profile, 'POST', '/v1/me/grid/moves', { post_id: post, after }), 'move');
  } else {
    ok(await call(profile, 'DELETE', `/v1/me/posts/${pick()}`), 'delete');
  }
}

/** `rounds` rounds of one write on each of `profiles`, `parallel` profiles at a time. */
async function load(
  profiles: readonly bigint[],
  rounds: number,
  seed: number,
  ops: Record<string, number>,
) {
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < profiles.length; i += 6) {
      await Promise.all(profiles.slice(i, i + 6).map((p) => write(p, rand, ops)));
    }
  }
}

const lastJson = (text: string) => {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  return JSON.parse(lines[lines.length - 1] ?? '{}') as {
    check?: { followers: number; missing: number; extra: number; behind: number };
  };
};

describe.skipIf(down !== null)('the reference feed through a Redis data loss', () => {
  it('no exit on NOGROUP; after the loss every follower’s feed equals its grids (0 missing, 0 extra); --check after a restart checks every follower', async () => {
    const profiles = Array.from({ length: PROFILES }, randomId);
    // Follower i follows profiles 2i, 2i+1 and 2i+2: every profile has one or two followers.
    const followers = Array.from({ length: FOLLOWERS }, (_, i) => `${randomId()}`.slice(0, 15) + i);
    const graph = new Map(
      followers.map((f, i) => [f, [0, 1, 2].map((d) => profiles[(2 * i + d) % PROFILES]!)]),
    );
    const follows = [...graph].flatMap(([f, ps]) => ['--follow', `${f}:${ps.join(',')}`]);
    const ops: Record<string, number> = {};

    const feed = startConsumer([...follows, '--until-idle-ms', '10000', '--check', baseUrl]);
    // The consumer has made its group on every shard stream before any write.
    const probe = new Redis(own.url, { retryStrategy: () => 200, maxRetriesPerRequest: 1 });
    probe.on('error', () => {});
    const t0 = Date.now();
    for (;;) {
      const groups = (await probe.exists(`${PREFIX}changes:{0}`)) === 1;
      if (groups) break;
      expect(Date.now() - t0, `the consumer started: ${feed.stderr()}`).toBeLessThan(60_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    probe.disconnect();

    // Before the loss: three creates on every profile, then mixed writes.
    for (let i = 0; i < 3; i++) await load(profiles, 1, 1, { create: 0 });
    await load(profiles, 3, 31, ops);
    await new Promise((r) => setTimeout(r, 1500));

    // Frozen consumer, one more write on every profile (unread entries), then the loss.
    process.kill(feed.child.pid!, 'SIGSTOP');
    await load(profiles, 1, 77, ops);
    await own.kill();
    own = await startOwnRedis(redisPort);
    process.kill(feed.child.pid!, 'SIGCONT');

    // After the loss: writes on the first half only; the second half stays quiet.
    await load(profiles.slice(0, PROFILES / 2), 4, 91, ops);

    const code = await feed.exited;
    console.log(`[feed-redis-loss] ops ${JSON.stringify(ops)}; consumer: ${feed.stdout().trim()}`);
    expect(code, `the consumer survived the loss: ${feed.stderr().slice(-2000)}`).toBe(0);

    // The reference: every follower's timeline against the union of its grids, read back now.
    const grids = new Map<bigint, Set<string>>();
    for (const p of profiles) grids.set(p, await gridOf(p));
    const redis = new Redis(own.url);
    let missing = 0;
    let extra = 0;
    let entries = 0;
    for (const [f, ps] of graph) {
      const ids = new Set((await readTimeline(redis, keys, f)).map((t) => t.postId.toString()));
      const expected = new Set(ps.flatMap((p) => [...grids.get(p)!]));
      entries += ids.size;
      missing += [...expected].filter((p) => !ids.has(p)).length;
      extra += [...ids].filter((p) => !expected.has(p)).length;
    }
    redis.disconnect();
    expect(entries).toBeGreaterThan(0);
    expect({ missing, extra }).toEqual({ missing: 0, extra: 0 });
    expect(lastJson(feed.stdout()).check).toMatchObject({ missing: 0, extra: 0, behind: 0 });

    // A consumer started again, told nothing of the follows: its --check covers every follower.
    const again = startConsumer(['--until-idle-ms', '1500', '--check', baseUrl]);
    expect(await again.exited, again.stderr().slice(-2000)).toBe(0);
    expect(lastJson(again.stdout()).check).toMatchObject({
      followers: FOLLOWERS,
      missing: 0,
      extra: 0,
      behind: 0,
    });
  }, 240_000);
});
