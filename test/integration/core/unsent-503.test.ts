/**
 * What a 503 says about a move when the node dies, against the real node behind a loopback proxy
 * (support/tcp-proxy.ts; only this file's client is affected):
 *   - the node refuses (the proxy resets every connection and refuses new ones) before the
 *     compare-and-set is handed over: nothing was sent, so `unavailable`, and nothing applies;
 *   - the compare-and-set reaches the node but its answer never comes back (the proxy forwards
 *     the batch and drops the reply, or resets the connection after it): `write_outcome_unknown`,
 *     and here the move did apply, which is why "not applied" would have been false.
 * Both for a move without a key and one with an Idempotency-Key. The client's own timeout (1 s)
 * is below the write deadline (2 s), so the driver's error, not the deadline, decides the answer.
 */
import { errors, type Client } from 'cassandra-driver';
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

const JWT = 'unsent-503-tests-jwt-secret-0123456789';
const PROBLEMS = 'https://regrid.dev/problems/';
const LEASE_MS = 1_000;

let config: Config;
let proxy: CqlProxy;
let client: Client;
let service: GridService;
let app: Hono<AppEnv>;
/** Runs once, right before the next compare-and-set batch is handed to the driver. */
let beforeNextBatch: (() => Promise<void>) | undefined;
const logged: string[] = [];

beforeAll(async () => {
  config = testConfig({
    CASSANDRA_REQUEST_TIMEOUT_MS: '1000',
    REQUEST_DEADLINE_READ_MS: '1000',
    REQUEST_DEADLINE_WRITE_MS: '2000',
    CASSANDRA_RECONNECT_BASE_MS: '100',
    CASSANDRA_RECONNECT_MAX_MS: '200',
    IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
  });
  proxy = await startCqlProxy({
    host: config.CASSANDRA_CONTACT_POINTS[0] ?? '127.0.0.1',
    port: config.CASSANDRA_PORT,
  });
  client = await connectedThroughProxy();
  const hooked: Pick<Cql, 'execute' | 'batch'> = {
    execute: (q, p, o) => client.execute(q, p, o),
    batch: async (q, o) => {
      const hook = beforeNextBatch;
      beforeNextBatch = undefined;
      await hook?.();
      return client.batch(q, o);
    },
  };
  const cql = cqlOf(hooked);
  service = new GridService({
    cql,
    config,
    ids: idsFromWorkers(7560, 20),
    cursorSecret: 'unsent-503-tests-cursor-secret-0123',
  });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
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

async function connectedThroughProxy(): Promise<Client> {
  const c = createCassandraClient(config, {
    keyspace: TEST_KEYSPACE,
    contactPoints: [`127.0.0.1:${proxy.port}`],
    port: proxy.port,
  });
  await c.connect();
  return c;
}

/** The node back, and the client's pool with it (a swallowed answer leaves a connection unusable). */
afterEach(async () => {
  beforeNextBatch = undefined;
  await proxy.kill();
  await proxy.revive();
  await untilAnswers();
});

afterAll(async () => {
  await client?.shutdown();
  await proxy?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until the node answers through the proxy five times in a row (the whole pool is back). */
async function untilAnswers(): Promise<void> {
  for (let i = 0, inARow = 0; i < 200; i++) {
    const ok = await client.execute('SELECT release_version FROM system.local').then(
      () => true,
      () => false,
    );
    inARow = ok ? inARow + 1 : 0;
    if (inARow === 5) return;
    await sleep(50);
  }
  throw new Error('the node did not answer again through the proxy');
}

/**
 * Resolves once the driver has seen the node go: its connections reset, none left to send on (a
 * statement then fails with NoHostAvailableError at once, each host "down" or without a
 * connection), which is what a killed node looks like a few milliseconds later.
 */
async function killed(): Promise<void> {
  await proxy.kill();
  for (let i = 0; i < 200; i++) {
    const err = await client.execute('SELECT release_version FROM system.local').then(
      () => undefined,
      (e: unknown) => e,
    );
    const inner = Object.values((err as { innerErrors?: object } | undefined)?.innerErrors ?? {});
    const noConnection = (e: unknown) =>
      typeof e === 'string' || (e as Error | undefined)?.message === 'No connection available';
    if (err instanceof errors.NoHostAvailableError && inner.every(noConnection)) return;
    await sleep(20);
  }
  throw new Error('the driver still holds a connection after the proxy was killed');
}

async function seeded(n: number): Promise<{ me: bigint; posts: string[]; version: bigint }> {
  const me = randomProfile();
  const posts: string[] = [];
  for (let i = 0; i < n; i++) {
    posts.push((await service.createPost(me, { caption: `p${i}` })).value.postId.toString());
  }
  return { me, posts, version: (await service.store.readHead(me)).version };
}

/**
 * A move of the same shape first, answered: the driver prepares a batch's statements the first
 * time it sees them, and a PREPARE whose answer is swallowed would keep the batch from being sent.
 */
async function warmedUp(keyed = false): Promise<{ me: bigint; posts: string[]; version: bigint }> {
  const { me, posts } = await seeded(3);
  expect((await move(me, posts[2]!, keyed ? `warm-up-${me}` : undefined)).status).toBe(200);
  return { me, posts, version: (await service.store.readHead(me)).version };
}

async function move(me: bigint, postId: string, key?: string): Promise<JsonReply> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${await issueToken(JWT, me)}`,
    ...(key ? { 'idempotency-key': key } : {}),
  };
  const body = JSON.stringify({ post_id: postId, after: null });
  return requestJson(app, 'POST', '/v1/me/grid/moves', headers, body);
}

const expect503 = (r: JsonReply, code: string) => {
  const said = `${r.status} ${r.json?.code}: ${r.json?.detail}; logged: ${logged.at(-1)}`;
  expect(r.status, said).toBe(503);
  expect(r.json.type, said).toBe(`${PROBLEMS}${code}`);
  expect(r.headers.get('retry-after')).toMatch(/^[0-9]+$/);
};

/** Retries with the same key until it is answered other than 409/503, as a client would. */
async function settle(me: bigint, postId: string, key: string): Promise<JsonReply> {
  for (let i = 0; ; i++) {
    const r = await move(me, postId, key);
    if ((r.status !== 409 && r.status !== 503) || i >= 60) return r;
    await sleep(100);
  }
}

describe('a move the node never received answers unavailable, and nothing applies', () => {
  it('without a key', async () => {
    const { me, posts, version } = await warmedUp();
    beforeNextBatch = killed;
    const r = await move(me, posts[1]!);
    expect(beforeNextBatch).toBeUndefined(); // the node died at the compare-and-set
    expect503(r, 'unavailable');
    expect(r.json.detail).not.toMatch(/may or may not/);
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version);
  });

  it('without a key, the node dying as the statements are first prepared', async () => {
    // A fresh client has prepared nothing: the driver prepares the batch's statements first, on a
    // connection the node has just reset. The PREPARE fails; the batch is never sent.
    const { me, posts, version } = await seeded(3);
    const old = client;
    client = await connectedThroughProxy();
    await old.shutdown();
    beforeNextBatch = () => proxy.kill();
    const r = await move(me, posts[2]!);
    expect(beforeNextBatch).toBeUndefined();
    expect503(r, 'unavailable');
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version);
  });

  it('with an Idempotency-Key; a retry with the same key applies it once', async () => {
    const { me, posts, version } = await warmedUp(true);
    const key = `unsent-${me}`;
    beforeNextBatch = killed;
    const r = await move(me, posts[1]!, key);
    expect(beforeNextBatch).toBeUndefined();
    expect503(r, 'unavailable');
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version);
    const retry = await settle(me, posts[1]!, key);
    expect(retry.status).toBe(200);
    expect(BigInt(retry.json.grid_version)).toBe(version + 1n);
    expect((await service.store.readHead(me)).version).toBe(version + 1n);
  });

  it('with a key whose state cannot be read (dead before the ring read): outcome unknown', async () => {
    // An earlier attempt with this key may have committed, and nothing can tell (docs/idempotency.md).
    const { me, posts, version } = await seeded(2);
    await killed();
    const r = await move(me, posts[1]!, `unread-${me}`);
    expect503(r, 'write_outcome_unknown');
    expect(r.json.detail).toMatch(/earlier attempt/);
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version);
  });
});

describe('a move whose compare-and-set reached the node answers write_outcome_unknown', () => {
  it('without a key: the answer is lost, and the move did apply', async () => {
    const { me, posts, version } = await warmedUp();
    beforeNextBatch = async () => proxy.swallowAnswers();
    const r = await move(me, posts[1]!);
    expect(beforeNextBatch).toBeUndefined();
    expect503(r, 'write_outcome_unknown');
    await proxy.kill();
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version + 1n);
  });

  it('without a key: the connection is lost after the batch was written', async () => {
    const { me, posts, version } = await warmedUp();
    beforeNextBatch = async () => {
      proxy.swallowAnswers();
      setTimeout(() => void proxy.kill(), 150); // after the batch went out, before any answer
    };
    const r = await move(me, posts[1]!);
    expect503(r, 'write_outcome_unknown');
    await proxy.revive();
    await untilAnswers();
    expect((await service.store.readHead(me)).version).toBe(version + 1n);
  });

  it('with an Idempotency-Key: the retry with the same key replays it, applied once', async () => {
    const { me, posts, version } = await warmedUp(true);
    const key = `swallowed-${me}`;
    beforeNextBatch = async () => proxy.swallowAnswers();
    const r = await move(me, posts[1]!, key);
    expect503(r, 'write_outcome_unknown');
    await proxy.kill();
    await proxy.revive();
    await untilAnswers();
    const retry = await settle(me, posts[1]!, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(BigInt(retry.json.grid_version)).toBe(version + 1n);
    expect((await service.store.readHead(me)).version).toBe(version + 1n);
  });
});
