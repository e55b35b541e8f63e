/**
 * /readyz against the real node: the service process (src/main.ts, spawned) answers 503
 * `draining` from the moment it gets SIGTERM until its listener closes; and the replica check
 * says "down" exactly when a real LOCAL_QUORUM write fails with Unavailable (a keyspace at RF 3
 * on this one node), and "ok" on the test keyspace (RF 1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../src/http/routes/health.js';
import { quorumCheck } from '../../../src/service/quorum.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { createCassandraClient, cqlOf } from '../../../src/store/cassandra.js';
import { TEST_KEYSPACE, testConfig } from '../support/stores.js';

const RF3 = `${TEST_KEYSPACE}_rf3`;
let child: ChildProcess | undefined;
let client: Client | undefined;

afterAll(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL'); // the child we spawned, by its handle
  await client?.execute(`DROP KEYSPACE IF EXISTS ${RF3}`).catch(() => undefined);
  await client?.shutdown();
});

const get = async (base: string) => {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
};

describe('/readyz', () => {
  it('answers 503 draining from SIGTERM until the listener closes (SHUTDOWN_DRAIN_MS)', async () => {
    const drainMs = 2500;
    const settings = JSON.stringify({ SHUTDOWN_DRAIN_MS: drainMs });
    const entry = 'test/integration/support/serve-with.ts';
    child = spawn(process.execPath, ['--import', 'tsx', entry, settings], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        CASSANDRA_KEYSPACE: TEST_KEYSPACE,
        PORT: '0',
        AUTH_JWT_SECRET: 'readiness-test-jwt-secret-0123456789',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${output}`)), 90_000);
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child!.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
    });
    const before = await get(base);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ status: 'ready', checks: { cassandra: 'ok', replicas: 'ok' } }); // prettier-ignore

    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const seen: number[] = [];
    let answeredUntil = 0;
    let early = 0;
    for (;;) {
      const r = await get(base).catch(() => undefined);
      if (!r) break; // the listener closed
      // The signal and the first probe race: a probe the process read before it ran its SIGTERM
      // handler is still answered as ready. Only before the first 503, and only just after it.
      if (r.status === 200 && seen.length === 0 && performance.now() - t0 < 1000) {
        early += 1;
        await new Promise((res) => setTimeout(res, 20));
        continue;
      }
      seen.push(r.status);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'draining', checks: { shutdown: 'down' } });
      expect(r.retryAfter).toBe('1');
      answeredUntil = performance.now() - t0;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(await exited).toBe(0);
    console.log(`[readiness] ${early} probe(s) before the handler ran; ${seen.length} probes answered 503 draining over ${answeredUntil.toFixed(0)} ms after SIGTERM (drain ${drainMs} ms)`); // prettier-ignore
    expect(seen.length).toBeGreaterThan(3);
    expect(answeredUntil).toBeGreaterThan(drainMs / 2);
  }, 150_000);

  it('says replicas down exactly when a LOCAL_QUORUM write is Unavailable', async () => {
    const config = testConfig();
    client = createCassandraClient(config);
    await client.connect();
    await client.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${RF3} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}`,
    );
    await client.execute(`CREATE TABLE IF NOT EXISTS ${RF3}.t (k int PRIMARY KEY, v int)`);
    await client.metadata.refreshKeyspace(RF3);

    const write = () =>
      client!.execute(`INSERT INTO ${RF3}.t (k, v) VALUES (1, 1)`, [], { prepare: true });
    // Unavailable (code 0x1000) from the coordinator: 2 replicas required, 1 alive; the driver
    // wraps it once no other host is left to try.
    const err = (await write().then(
      () => undefined,
      (e: unknown) => e,
    )) as {
      innerErrors?: Record<string, { code?: number; required?: number; alive?: number }>;
    };
    expect(Object.values(err?.innerErrors ?? {})).toContainEqual(
      expect.objectContaining({ code: 0x1000, required: 2, alive: 1 }),
    );

    const rf3 = quorumCheck(client, { ...config, CASSANDRA_KEYSPACE: RF3 })();
    expect(rf3).toMatchObject({ met: false, example: { level: 'localQuorum', up: 1, needed: 2 } });
    const rf1 = quorumCheck(client, config)();
    expect(rf1).toMatchObject({ met: true, unmet: 0 });

    const cql = cqlOf(client);
    const route = healthRoutes(makeReadiness({ cql, quorum: quorumCheck(client, { ...config, CASSANDRA_KEYSPACE: RF3 }) })); // prettier-ignore
    const res = await route.request('/readyz');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { detail?: string };
    expect(body).toMatchObject({ status: 'unavailable', checks: { cassandra: 'ok', replicas: 'down' } }); // prettier-ignore
    expect(body.detail).toMatch(/token ranges cannot meet localQuorum \(1 replicas up, needs 2\)/);
    const ok = healthRoutes(makeReadiness({ cql, quorum: quorumCheck(client, config) }));
    expect((await ok.request('/readyz')).status).toBe(200);
  });
});
