/**
 * createRegrid (src/embed.ts) as a host program uses it: regrid mounted under /regrid in a host
 * Hono app beside the host's own routes, over a Cassandra client and an ioredis connection the
 * host owns, on the real stores. It serves under the prefix, and close() leaves the host's
 * connections working. An unmigrated or partly migrated keyspace is refused with a message that
 * says what to run; MIGRATE_ON_START=true migrates it instead.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'cassandra-driver';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegrid } from '../../src/index.js';
import { issueToken } from '../../src/http/auth.js';
import { createCassandraClient } from '../../src/store/cassandra.js';
import { schemaStatus } from '../../src/store/migration-status.js';
import { applyMigrations, DEFAULT_CQL_DIR } from '../../src/store/migrations.js';
import { randomProfile } from './core/harness.js';
import { connectTestClient, TEST_KEYSPACE, testConfig } from './support/stores.js';
import { cassandraSsl, rawRedis } from './support/tls-clients.js';

const SECRET = 'embed-tests-jwt-secret-0123456789';
// A worker number no other harness uses (support/stores.ts lists theirs).
const settings = { AUTH_JWT_SECRET: SECRET, CASSANDRA_KEYSPACE: TEST_KEYSPACE, WORKER_ID: '8191' };
const BARE = `${TEST_KEYSPACE}_bare`.slice(0, 48);

describe('createRegrid mounted in a host app', () => {
  let cassandra: Client;
  let redis: Redis;

  beforeAll(async () => {
    const config = testConfig();
    cassandra = await connectTestClient(config);
    redis = rawRedis(config, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    await cassandra.shutdown();
    redis.disconnect();
  });

  async function send(host: Hono, method: string, path: string, token?: string, body?: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers['authorization'] = `Bearer ${token}`;
    const res = await host.request(path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text };
  }

  it('serves under the prefix beside the host routes, and close() leaves the host connections open', async () => {
    const regrid = await createRegrid({ cassandra, redis, config: settings });
    const host = new Hono();
    host.get('/', (c) => c.text('host home'));
    host.route('/regrid', regrid.app);

    const me = randomProfile();
    const token = await issueToken(SECRET, me);
    const ids: string[] = [];
    for (const caption of ['a', 'b', 'c']) {
      const r = await send(host, 'POST', '/regrid/v1/me/posts', token, { caption });
      expect(r.status).toBe(201);
      ids.push(r.json.post.id);
    }
    // Newest first: c, b, a. Move a to the top.
    const moved = await send(host, 'POST', '/regrid/v1/me/grid/moves', token, {
      post_id: ids[0],
      after: null,
    });
    expect(moved.status).toBe(200);
    const page = await send(host, 'GET', `/regrid/v1/profiles/${me}/grid?limit=10`);
    expect(page.status).toBe(200);
    expect(page.json.items.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[2], ids[1]]);
    // The service is the one behind the app.
    const direct = await regrid.service.pages.page({ profileId: me, limit: 10 });
    expect(direct.items.map((i) => String(i.postId))).toEqual([ids[0], ids[2], ids[1]]);

    const ready = await send(host, 'GET', '/regrid/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toMatchObject({ cassandra: 'ok', redis: 'ok' });
    expect((await send(host, 'GET', '/')).json).toBe('host home');
    // Unprefixed, regrid's routes are not there: only the mount answers them.
    expect((await send(host, 'GET', `/v1/profiles/${me}/grid`)).status).toBe(404);
    // No development sign-in when embedded.
    expect((await send(host, 'POST', '/regrid/dev/token')).status).toBe(404);

    await regrid.close();
    expect(redis.status).toBe('ready');
    expect(await redis.ping()).toBe('PONG');
    const rs = await cassandra.execute('SELECT release_version FROM system.local');
    expect(rs.first()).toBeTruthy();
  });

  it('runs without Redis when none is given', async () => {
    const regrid = await createRegrid({ cassandra, config: settings });
    const host = new Hono().route('/r', regrid.app);
    const me = randomProfile();
    const token = await issueToken(SECRET, me);
    const a = await send(host, 'POST', '/r/v1/me/posts', token, { caption: 'x' });
    const b = await send(host, 'POST', '/r/v1/me/posts', token, { caption: 'y' });
    const moved = await send(host, 'POST', '/r/v1/me/grid/moves', token, {
      post_id: a.json.post.id,
      after: null,
    });
    expect(moved.status).toBe(200);
    const page = await send(host, 'GET', `/r/v1/profiles/${me}/grid`);
    expect(page.json.items.map((i: { id: string }) => i.id)).toEqual([
      a.json.post.id,
      b.json.post.id,
    ]);
    expect((await send(host, 'GET', '/r/readyz')).json.checks.redis).toBe('degraded');
    await regrid.close();
  });

  it('refuses what it cannot serve: no secret, a client on another keyspace', async () => {
    await expect(
      createRegrid({ cassandra, config: { CASSANDRA_KEYSPACE: TEST_KEYSPACE } }),
    ).rejects.toThrow(/AUTH_JWT_SECRET is required/);
    const unbound = createCassandraClient(testConfig());
    try {
      await expect(createRegrid({ cassandra: unbound, config: settings })).rejects.toThrow(
        new RegExp(`connected with keyspace '${TEST_KEYSPACE}' \\(its keyspace is unset\\)`),
      );
    } finally {
      await unbound.shutdown();
    }
  });

  it('refuses a host client without the encoding regrid needs, naming the setting', async () => {
    const config = testConfig();
    const hostClient = (encoding?: Record<string, boolean>) =>
      new Client({
        contactPoints: config.CASSANDRA_CONTACT_POINTS,
        protocolOptions: { port: config.CASSANDRA_PORT },
        localDataCenter: config.CASSANDRA_LOCAL_DC,
        keyspace: TEST_KEYSPACE,
        ...cassandraSsl(config),
        ...(encoding ? { encoding } : {}),
      });
    // cassandra-driver's defaults: bigint columns come back as Long objects, not bigint.
    const plain = hostClient();
    const noUnset = hostClient({ useBigIntAsLong: true, useUndefinedAsUnset: false });
    try {
      await expect(createRegrid({ cassandra: plain, config: settings })).rejects.toThrow(
        /encoding: \{ useBigIntAsLong: true \}/,
      );
      await expect(createRegrid({ cassandra: noUnset, config: settings })).rejects.toThrow(
        /useUndefinedAsUnset/,
      );
    } finally {
      await Promise.all([plain.shutdown(), noUnset.shutdown()]);
    }
  });

  it('drain() turns /readyz to 503 draining while the routes still answer; readiness checks the replicas', async () => {
    const regrid = await createRegrid({ cassandra, redis, config: settings });
    const host = new Hono().route('/regrid', regrid.app);
    const before = await send(host, 'GET', '/regrid/readyz');
    expect(before.status).toBe(200);
    expect(before.json.checks).toMatchObject({ cassandra: 'ok', replicas: 'ok' });
    regrid.drain();
    const during = await send(host, 'GET', '/regrid/readyz');
    expect(during.status).toBe(503);
    expect(during.json).toMatchObject({ status: 'draining' });
    expect((await send(host, 'GET', `/regrid/v1/profiles/${randomProfile()}/grid`)).status).toBe(
      200,
    );
    await regrid.close();
  });

  it('serves its docs and document under the mount prefix', async () => {
    const regrid = await createRegrid({ cassandra, config: settings });
    const host = new Hono().route('/api/grid', regrid.app);
    const doc = await send(host, 'GET', '/api/grid/openapi.json');
    expect(doc.json.servers).toEqual([{ url: '/api/grid' }]);
    const page = await send(host, 'GET', '/api/grid/docs');
    const refs = [...String(page.json).matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      const url = new URL(ref, 'http://host/api/grid/docs');
      expect((await host.request(url.pathname)).status, url.pathname).toBe(200);
    }
    await regrid.close();
  });

  it('refuses an unmigrated and a partly migrated keyspace; MIGRATE_ON_START=true migrates it', async () => {
    // DDL on a busy node can outlast the 2 s default statement timeout.
    const config = testConfig({ CASSANDRA_KEYSPACE: BARE, CASSANDRA_REQUEST_TIMEOUT_MS: '30000' });
    const bare = { ...settings, CASSANDRA_KEYSPACE: BARE };
    const admin = createCassandraClient(config);
    await admin.connect();
    await admin.execute(`DROP KEYSPACE IF EXISTS ${BARE}`);
    const oneFile = mkdtempSync(join(tmpdir(), 'regrid-embed-cql-'));
    try {
      // No keyspace at all: the client cannot even bind to it, so ask the status directly.
      expect((await schemaStatus(admin, BARE)).keyspaceExists).toBe(false);
      // Partly migrated: only the first file applied.
      copyFileSync(join(DEFAULT_CQL_DIR, '001_core.cql'), join(oneFile, '001_core.cql'));
      await applyMigrations(admin, config, BARE, { dir: oneFile });
      const bound = createCassandraClient(config, { keyspace: BARE });
      try {
        const status = await schemaStatus(bound, BARE);
        expect(status.pending).not.toContain('001_core');
        expect(status.pending.length).toBe(status.total - 1);
        await expect(createRegrid({ cassandra: bound, config: bare })).rejects.toThrow(
          new RegExp(
            `keyspace ${BARE} is not migrated \\(${status.total - 1} of ${status.total} ` +
              'migrations pending: .*run `regrid migrate`',
          ),
        );
        const migrated = await createRegrid({
          cassandra: bound,
          config: { ...bare, MIGRATE_ON_START: 'true', CASSANDRA_REQUEST_TIMEOUT_MS: '30000' },
        });
        expect((await schemaStatus(bound, BARE)).pending).toEqual([]);
        await migrated.close();
      } finally {
        await bound.shutdown();
      }
    } finally {
      rmSync(oneFile, { recursive: true, force: true });
      await admin.execute(`DROP KEYSPACE IF EXISTS ${BARE}`);
      await admin.shutdown();
    }
  });
});
