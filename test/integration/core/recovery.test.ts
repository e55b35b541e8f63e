/**
 * Recovery after the node dies and comes back, seen by a long-lived client: the client reaches
 * the shared node through a loopback proxy that resets every connection and refuses new ones
 * (what kill -9 looks like to the driver), then listens again (the node restarted). Only this
 * file's client is affected. The outage (3.6 s) is long enough that the driver's default
 * reconnection schedule (1 s, 2 s, 4 s … with ±15 % jitter) has its next attempt 2.5 s or more
 * after the node is back; a short schedule reconnects within a second.
 */
import type { Client } from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { createCassandraClient, cqlOf } from '../../../src/store/cassandra.js';
import { idsFromWorkers, TEST_KEYSPACE, testConfig } from '../support/stores.js';
import { startCqlProxy, type CqlProxy } from '../support/tcp-proxy.js';

let proxy: CqlProxy | undefined;
let client: Client | undefined;

afterAll(async () => {
  await client?.shutdown();
  await proxy?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds until `attempt` first resolves true, polling every 25 ms (at most `maxMs`). */
async function msUntil(attempt: () => Promise<boolean>, maxMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    if (await attempt().catch(() => false)) return performance.now() - t0;
    await sleep(25);
  }
  return Infinity;
}

describe('recovery after the node restarts', () => {
  it('queries and /readyz succeed again within 1.5 s of the node answering', async () => {
    const config = testConfig();
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
    const cql = cqlOf(client);
    const app = createApp({
      service: new GridService({ cql, config, ids: idsFromWorkers(7540, 10), cursorSecret: 'x' }),
      jwtSecret: 'recovery-tests-jwt-secret-0123456789',
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      readiness: makeReadiness({ cql, timeoutMs: config.READYZ_TIMEOUT_MS }),
    });
    const query = async () => {
      await cql.execute('SELECT release_version FROM system.local', [], { prepare: true });
      return true;
    };
    const ready = async () => (await app.request('/readyz')).status === 200;
    expect(await query()).toBe(true);
    expect(await ready()).toBe(true);

    await proxy.kill();
    const t0 = performance.now();
    await expect(query()).rejects.toThrow();
    expect(await ready()).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1000); // a dead node is not waited for
    await sleep(3600);

    await proxy.revive();
    const [queryMs, readyMs] = await Promise.all([msUntil(query, 10_000), msUntil(ready, 10_000)]);
    expect(queryMs).toBeLessThan(1500);
    expect(readyMs).toBeLessThan(1500);
  });
});
