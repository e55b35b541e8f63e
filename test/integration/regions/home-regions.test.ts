/**
 * Home regions (docs/regions.md "Home regions") on the real stores: two regrid services made by
 * createRegrid as regions dc1 and dc2 over the one test node (one keyspace, as two data centers
 * of one cluster would share it), dc1 also listening on a port so dc2 can forward to it. The
 * logic under test is regrid's: the home is claimed by a grid's first write, read with the
 * version inside the compare-and-set, refused (421) or forwarded elsewhere, and changed only by
 * a re-home that itself bumps the version. (A real two-DC ring with partitions is tools/ work.)
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from 'cassandra-driver';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegrid, type Regrid } from '../../../src/index.js';
import { issueToken } from '../../../src/http/auth.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import { failoverRegion } from '../../../src/service/operations/home-region.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { HomeRegionStore } from '../../../src/store/home-region-store.js';
import { CURSOR_SECRET, randomProfile, readAll } from '../core/harness.js';
import { GridService } from '../../../src/service/grid-service.js';
import { TracingCql } from '../../../tools/loadtest/cql-trace.js';
import { connectTestClient, TEST_KEYSPACE, testConfig } from '../support/stores.js';

const SECRET = 'regions-tests-jwt-secret-0123456789';
const SERVICE_SECRET = 'regions-tests-service-secret-012345';
// Worker numbers no other harness uses (support/stores.ts lists theirs).
const base = {
  AUTH_JWT_SECRET: SECRET,
  AUTH_SERVICE_JWT_SECRET: SERVICE_SECRET,
  CASSANDRA_KEYSPACE: TEST_KEYSPACE,
  MOVE_RATE_LIMIT: '100000',
};

interface Reply {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}

let cassandra: Client;
let redis: Redis;
let dc1: Regrid;
let dc2refuse: Regrid;
let dc2forward: Regrid;
let dc2nopeer: Regrid;
let server: ServerType;

beforeAll(async () => {
  const config = testConfig();
  cassandra = await connectTestClient(config);
  redis = new Redis(config.REDIS_URL, { lazyConnect: true });
  await redis.connect();
  const region = (name: string, mode: string, worker: number, extra: Record<string, string> = {}) =>
    createRegrid({
      cassandra,
      redis,
      config: {
        ...base,
        REGRID_REGION: name,
        REGRID_HOME_REGIONS: mode,
        WORKER_ID: String(worker),
        ...extra,
      },
    });
  dc1 = await region('dc1', 'refuse', 7591);
  server = serve({ fetch: dc1.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const port = (server.address() as AddressInfo).port;
  dc2refuse = await region('dc2', 'refuse', 7592);
  dc2forward = await region('dc2', 'forward', 7593, {
    REGRID_REGION_PEERS: `dc1=http://127.0.0.1:${port},dc2=http://127.0.0.1:1`,
  });
  // dc1 has no entry; dc3 is a port nothing listens on.
  dc2nopeer = await region('dc2', 'forward', 7594, {
    REGRID_REGION_PEERS: 'dc3=http://127.0.0.1:1',
  });
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  for (const r of [dc1, dc2refuse, dc2forward, dc2nopeer]) await r?.close();
  await cassandra?.shutdown();
  redis?.disconnect();
});

async function send(
  r: Regrid,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; key?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  if (opts.key) headers['idempotency-key'] = opts.key;
  const res = await r.app.request(path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text.startsWith('{') ? JSON.parse(text) : {},
    headers: res.headers,
  };
}

const head = (profileId: bigint) => dc1.service.readRequestRing(profileId);

/** A profile with `n` posts created through dc1 (its first write claims the grid for dc1). */
async function profileIn(r: Regrid, n: number) {
  const me = randomProfile();
  const token = await issueToken(SECRET, me);
  const posts: string[] = [];
  for (let i = 0; i < n; i++) {
    const out = await send(r, 'POST', '/v1/me/posts', { token, body: { caption: `p${i}` } });
    expect(out.status).toBe(201);
    posts.push(String((out.json['post'] as { id: string }).id));
  }
  return { me, token, posts };
}

const move = (r: Regrid, token: string, post: string, after: string | null, key?: string) =>
  send(r, 'POST', '/v1/me/grid/moves', {
    token,
    body: { post_id: post, after },
    ...(key ? { key } : {}),
  });

const setHome = async (r: Regrid, profileId: bigint, region: string) =>
  send(r, 'PUT', `/v1/profiles/${profileId}/home-region`, {
    token: await issueServiceToken(SERVICE_SECRET, 'platform'),
    body: { region },
  });

describe('home regions', () => {
  it("a grid's first write sets its home to the writing region, inside its batch", async () => {
    const { me } = await profileIn(dc1, 1);
    const h = await head(me);
    expect(h.homeRegion).toBe('dc1');
    expect(h.version).toBe(1n);
  });

  it('a write in another region is refused with 421 wrong_region naming the home, and changes nothing', async () => {
    const { me, token, posts } = await profileIn(dc1, 3);
    const before = await head(me);
    const out = await move(dc2refuse, token, posts[2]!, null, 'k-refused');
    expect(out.status).toBe(421);
    expect(out.headers.get('content-type')).toContain('application/problem+json');
    expect(out.json['type']).toBe('https://regrid.dev/problems/wrong_region');
    expect(out.json['home_region']).toBe('dc1');
    expect(String(out.json['detail'])).toContain('nothing was applied');
    const after = await head(me);
    expect(after.version).toBe(before.version);
    expect(after.homeRegion).toBe('dc1');
    // A new post is a grid write too.
    const created = await send(dc2refuse, 'POST', '/v1/me/posts', { token, body: {} });
    expect(created.status).toBe(421);
    expect((await head(me)).version).toBe(before.version);
  });

  it('forward: the home region applies it once; the same Idempotency-Key replays the same answer', async () => {
    const { me, token, posts } = await profileIn(dc1, 3);
    const before = await head(me);
    const key = `fwd-${me}`;
    const first = await move(dc2forward, token, posts[2]!, null, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-regrid-region')).toBe('dc1');
    expect(first.json['grid_version']).toBe(String(before.version + 1n));
    const again = await move(dc2forward, token, posts[2]!, null, key);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // And at the home region itself.
    const there = await move(dc1, token, posts[2]!, null, key);
    expect(there.json).toEqual(first.json);
    const after = await head(me);
    expect(after.version).toBe(before.version + 1n); // one commit
    expect(after.homeRegion).toBe('dc1');
  });

  it('forward with no peer for the home region: 503 with Retry-After, nothing applied', async () => {
    const { me, token, posts } = await profileIn(dc1, 2);
    const before = await head(me);
    const out = await move(dc2nopeer, token, posts[1]!, null, `np-${me}`);
    expect(out.status).toBe(503);
    expect(out.headers.get('retry-after')).toBe('1');
    expect(out.json['code']).toBe('unavailable');
    expect(out.json['home_region']).toBe('dc1');
    expect(String(out.json['detail'])).toContain('nothing was applied');
    expect((await head(me)).version).toBe(before.version);
  });

  it('a re-home racing moves: every version is exactly one write, no move commits after the re-home', async () => {
    const { me, token, posts } = await profileIn(dc1, 6);
    const start = (await head(me)).version;
    // Four movers, six moves each one after another; the re-home goes out once a few are in,
    // so moves are in flight on both sides of it.
    const answers: Reply[] = [];
    let acks = 0;
    let release!: () => void;
    const fewIn = new Promise<void>((r) => (release = r));
    const mover = async (m: number) => {
      for (let i = 0; i < 6; i++) {
        const a = await move(dc1, token, posts[(m + i) % 6]!, posts[(m + i + 3) % 6]!);
        answers.push(a);
        if (a.status === 200 && ++acks === 3) release();
      }
    };
    const movers = Promise.all([0, 1, 2, 3].map(mover));
    const home = await fewIn.then(() => setHome(dc2refuse, me, 'dc2'));
    await movers;
    expect(home.status).toBe(200);
    expect(home.json['previous_home_region']).toBe('dc1');
    expect(home.json['changed']).toBe(true);
    const rehomeAt = BigInt(String(home.json['grid_version']));
    const acked = answers
      .filter((a) => a.status === 200)
      .map((a) => BigInt(String(a.json['grid_version'])));
    const refused = answers.filter((a) => a.status === 421);
    expect(acked.length + refused.length).toBe(answers.length); // nothing else (no 5xx)
    for (const r of refused) expect(r.json['home_region']).toBe('dc2');
    // Versions: the acked moves and the re-home, each its own, consecutive from the start.
    const all = [...acked, rehomeAt].sort((a, b) => (a < b ? -1 : 1));
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(all.map((_, i) => start + 1n + BigInt(i)));
    for (const v of acked) expect(v).toBeLessThan(rehomeAt);
    const after = await head(me);
    expect(after.version).toBe(rehomeAt);
    expect(after.homeRegion).toBe('dc2');
    console.log(
      `[regions] race: ${acked.length} moves before the re-home at v${rehomeAt}, ${refused.length} refused after it`,
    );
    // Now dc2 writes it and dc1 is refused.
    expect((await move(dc2refuse, token, posts[0]!, null)).status).toBe(200);
    expect((await move(dc1, token, posts[0]!, null)).status).toBe(421);
  });

  it('a region that handed a grid away serves it again once it is handed back (never refuses on its own memory)', async () => {
    const { me, token, posts } = await profileIn(dc1, 3);
    expect((await setHome(dc1, me, 'dc2')).status).toBe(200); // dc1's own write: dc1 remembers dc2
    expect((await setHome(dc2refuse, me, 'dc1')).status).toBe(200); // handed back by another process
    const back = await move(dc1, token, posts[2]!, null);
    expect(back.status).toBe(200);
    expect((await head(me)).homeRegion).toBe('dc1');
  });

  it('setting the same home again writes nothing; a bad region name is a 400 that changes nothing', async () => {
    const { me } = await profileIn(dc1, 1);
    const v = (await head(me)).version;
    const same = await setHome(dc2refuse, me, 'dc1');
    expect(same.status).toBe(200);
    expect(same.json['changed']).toBe(false);
    const bad = await setHome(dc1, me, '');
    expect(bad.status).toBe(400);
    expect((await head(me)).version).toBe(v);
  });

  it('failover re-homes every grid of the lost region, and only those', async () => {
    const lost = await Promise.all([profileIn(dc1, 1), profileIn(dc1, 1), profileIn(dc1, 1)]);
    for (const p of lost) expect((await setHome(dc1, p.me, 'dc9')).status).toBe(200);
    const stays = await profileIn(dc1, 1);
    const versions = await Promise.all(lost.map((p) => head(p.me).then((h) => h.version)));
    const config = testConfig();
    const homes = new HomeRegionStore(cqlOf(cassandra), consistencyOf(config));
    const report = await failoverRegion(dc1.service.writer, homes, 'dc9', 'dc1');
    expect(report.failed).toEqual([]);
    expect(report.homedThere).toBeGreaterThanOrEqual(3);
    expect(report.rehomed).toBe(report.homedThere - report.skipped);
    for (const [i, p] of lost.entries()) {
      const h = await head(p.me);
      expect(h.homeRegion).toBe('dc1');
      expect(h.version).toBe(versions[i]! + 1n);
    }
    expect((await head(stays.me)).homeRegion).toBe('dc1');
    // Run again: nothing left in dc9.
    const again = await failoverRegion(dc1.service.writer, homes, 'dc9', 'dc1');
    expect(again.homedThere).toBe(0);
    console.log(`[regions] failover scanned ${report.scanned} grids, re-homed ${report.rehomed}`);
  });

  it('claims and re-homes write no tombstone: a traced full read of the grid meets 0 tombstone cells', async () => {
    const { me, token, posts } = await profileIn(dc1, 4); // claimed by dc1
    expect((await move(dc1, token, posts[3]!, null)).status).toBe(200);
    expect((await setHome(dc1, me, 'dc2')).status).toBe(200);
    expect((await move(dc2refuse, token, posts[2]!, null)).status).toBe(200);
    expect((await setHome(dc2refuse, me, 'dc1')).status).toBe(200);
    const traced = new TracingCql(cassandra);
    const config = testConfig();
    const ids = { next: () => 0n } as unknown as ConstructorParameters<
      typeof GridService
    >[0]['ids'];
    const reader = new GridService({ cql: traced, config, ids, cursorSecret: CURSOR_SECRET });
    const read = await readAll(reader, me, 2);
    expect(read.length).toBe(4);
    const tally = await traced.tally();
    expect(tally.reads).toBeGreaterThan(0);
    console.log(
      `[regions] traced read after a claim, 2 re-homes, 2 moves: ${tally.liveRows} live rows, ${tally.tombstoneCells} tombstone cells`,
    );
    expect(tally.tombstoneCells).toBe(0);
  });
});
