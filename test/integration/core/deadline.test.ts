/**
 * Per-request deadlines against a real stall: the service's client reaches the shared node
 * through a loopback proxy that stops moving bytes (what a SIGSTOPped node looks like to the
 * driver), so only this file's client sees the stall. The client's own timeout is set far above
 * the deadlines (10 s), so only the deadline can answer in time, and a statement stuck in the
 * stall does complete after it, which is the case the "did not start" promise has to survive.
 */
import type { Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { deadlinesOf } from '../../../src/http/deadline.js';
import type { AppEnv } from '../../../src/http/env.js';
import { GridService } from '../../../src/service/grid-service.js';
import { IdempotencyService } from '../../../src/service/idempotency/idempotency.js';
import { createCassandraClient, cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { IdempotencyStore } from '../../../src/store/idempotency-store.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { idsFromWorkers, TEST_KEYSPACE, testConfig } from '../support/stores.js';
import { startCqlProxy, type CqlProxy } from '../support/tcp-proxy.js';
import { randomProfile } from './harness.js';

const JWT = 'deadline-tests-jwt-secret-0123456789';
const PROBLEMS = 'https://regrid.dev/problems/';

let config: Config;
let proxy: CqlProxy;
let client: Client;
let service: GridService;
let app: Hono<AppEnv>;
let stallAtNextBatch = false;
const logged: string[] = [];
/** Statements handed to the driver, by the profile they name first (a grid read's key). */
const sentFor = new Map<unknown, number>();

beforeAll(async () => {
  config = testConfig({
    CASSANDRA_REQUEST_TIMEOUT_MS: '10000',
    REQUEST_DEADLINE_READ_MS: '1000',
    REQUEST_DEADLINE_WRITE_MS: '2000',
  });
  proxy = await startCqlProxy({
    host: config.CASSANDRA_CONTACT_POINTS[0] ?? '127.0.0.1',
    port: config.CASSANDRA_PORT,
  });
  client = createCassandraClient(config, {
    keyspace: TEST_KEYSPACE,
    contactPoints: [`127.0.0.1:${proxy.port}`],
    port: proxy.port,
  });
  await client.connect();
  // The moment a move hands its compare-and-set batch to the driver is when the node stalls.
  const stallingClient: Pick<Cql, 'execute' | 'batch'> = {
    execute: (q, p, o) => {
      sentFor.set(p?.[0], (sentFor.get(p?.[0]) ?? 0) + 1);
      return client.execute(q, p, o);
    },
    batch: (q, o) => {
      if (stallAtNextBatch) {
        stallAtNextBatch = false;
        proxy.stall();
      }
      return client.batch(q, o);
    },
  };
  const cql = cqlOf(stallingClient);
  service = new GridService({
    cql,
    config,
    ids: idsFromWorkers(7500, 40),
    cursorSecret: 'deadline-tests-cursor-secret-0123',
  });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: 30_000,
  });
  app = createApp({
    service,
    idempotency,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ready: true, checks: {} }),
    deadlines: deadlinesOf(config),
    log: (msg, err) => logged.push(`${msg} ${String(err)}`),
  });
});

afterEach(() => proxy.resume());

afterAll(async () => {
  await client?.shutdown();
  await proxy?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean, ms = 5000): Promise<void> {
  for (const t0 = Date.now(); !done() && Date.now() - t0 < ms;) await sleep(20);
}

async function timed(
  method: string,
  path: string,
  opts: { as?: bigint; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonReply & { ms: number }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.as !== undefined) headers.authorization = `Bearer ${await issueToken(JWT, opts.as)}`;
  const t0 = performance.now();
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const reply = await requestJson(app, method, path, headers, body);
  return { ...reply, ms: performance.now() - t0 };
}

async function seeded(n: number): Promise<{ me: bigint; posts: string[]; version: bigint }> {
  const me = randomProfile();
  const posts: string[] = [];
  for (let i = 0; i < n; i++) {
    posts.push((await service.createPost(me, { caption: `p${i}` })).value.postId.toString());
  }
  return { me, posts, version: (await service.store.readHead(me)).version };
}

const expect503 = (r: JsonReply & { ms: number }, code: string, deadlineMs: number) => {
  expect(r.status).toBe(503);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(r.headers.get('retry-after')).toMatch(/^[0-9]+$/);
  expect(r.json.type).toBe(`${PROBLEMS}${code}`);
  // Not before the deadline, and well before the client's 10 s timeout could have answered.
  expect(r.ms).toBeGreaterThanOrEqual(deadlineMs - 5);
  expect(r.ms).toBeLessThan(deadlineMs + 1000);
};

describe('a Cassandra stall is answered at the request deadline', () => {
  it('a read answers 503 unavailable at the read deadline, and the 503 is logged', async () => {
    const { me } = await seeded(3);
    proxy.stall();
    const r = await timed('GET', `/v1/profiles/${me}/grid`);
    expect503(r, 'unavailable', 1000);
    expect(logged.some((l) => l.includes(`503 unavailable GET /v1/profiles/${me}/grid`))).toBe(
      true,
    );
  });

  it('a move stalled before any write answers 503 unavailable, and never happens later', async () => {
    const { me, posts, version } = await seeded(3);
    proxy.stall();
    const r = await timed('POST', '/v1/me/grid/moves', {
      as: me,
      body: { post_id: posts[0], after: null },
    });
    expect503(r, 'unavailable', 2000);
    expect(r.json.detail).toMatch(/not applied/);
    // The stuck read now completes (the client's timeout is 10 s): the move must still not run.
    proxy.resume();
    await sleep(1500);
    expect((await service.store.readHead(me)).version).toBe(version);
    const late = `after the deadline POST /v1/me/grid/moves`;
    expect(logged.some((l) => l.includes(late) && l.includes('refused after the deadline'))).toBe(
      true,
    );
  });

  it('a page read answered at its deadline sends no statement after it: the next is refused', async () => {
    const { me } = await seeded(3);
    proxy.stall();
    const r = await timed('GET', `/v1/profiles/${me}/grid`);
    expect503(r, 'unavailable', 1000);
    const sent = sentFor.get(me) ?? 0;
    expect(sent).toBeGreaterThan(0); // the head read, stuck in the stall
    // The stuck read now completes (the client's timeout is 10 s); the page's next read (the
    // overrides) names the sealed scope, so the wrapper refuses it without contacting Cassandra.
    proxy.resume();
    const late = `after the deadline GET /v1/profiles/${me}/grid`;
    await until(() => logged.some((l) => l.includes(late)));
    expect(logged.find((l) => l.includes(late))).toContain('refused after the deadline');
    expect(sentFor.get(me)).toBe(sent);
  });

  it('a move whose compare-and-set was sent answers 503 write_outcome_unknown; a retry with the same Idempotency-Key applies it once', async () => {
    const { me, posts, version } = await seeded(3);
    const move = { as: me, body: { post_id: posts[0], after: null } };
    const key = { 'idempotency-key': `deadline-${me}` };
    stallAtNextBatch = true;
    const r = await timed('POST', '/v1/me/grid/moves', { ...move, headers: key });
    expect(stallAtNextBatch).toBe(false); // the stall began at the compare-and-set
    expect503(r, 'write_outcome_unknown', 2000);
    expect(r.json.detail).toMatch(/same Idempotency-Key/);
    proxy.resume();

    let retry = await timed('POST', '/v1/me/grid/moves', { ...move, headers: key });
    for (let i = 0; i < 50 && retry.status === 409; i++) {
      await sleep(100); // the first attempt is still settling its idempotency record
      retry = await timed('POST', '/v1/me/grid/moves', { ...move, headers: key });
    }
    expect(retry.status).toBe(200);
    expect(BigInt(retry.json.grid_version)).toBe(version + 1n);
    expect((await service.store.readHead(me)).version).toBe(version + 1n);
    const page = await timed('GET', `/v1/profiles/${me}/grid`);
    expect(page.json.items[0].id).toBe(posts[0]);
  });
});
