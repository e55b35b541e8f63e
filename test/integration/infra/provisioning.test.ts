/**
 * The provisioned stores really are what the rest of the suite relies on: Cassandra 5.0 with
 * LWT conditional batches on a static column, query tracing that reports tombstone cells, and
 * (for the local Maven node) nodetool / sstablemetadata figures.
 */
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { flushTable, sstableTombstones, tableStats } from '../../../tools/infra/nodetool.js';
import { cassandraSsl, rawRedis } from '../support/tls-clients.js';

const ctx = inject('integration');
const KS = ctx.keyspace;
const TABLE = 'infra_probe';
let client: cassandra.Client;

beforeAll(async () => {
  client = new cassandra.Client({
    contactPoints: ctx.contactPoints,
    protocolOptions: { port: ctx.port },
    localDataCenter: ctx.localDataCenter,
    encoding: { useBigIntAsLong: true },
    ...cassandraSsl(loadConfig()),
  });
  await client.connect();
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${KS}.${TABLE} (pk bigint, ck bigint, v bigint, version bigint static, PRIMARY KEY (pk, ck))`,
  );
});

afterAll(async () => {
  await client?.shutdown();
});

// Each run uses fresh partitions so reruns against a reused node start clean.
const pk = () => BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000));

describe('provisioned stores', () => {
  it('hands the same connection facts to loadConfig() through process.env', () => {
    const config = loadConfig();
    expect(config.CASSANDRA_KEYSPACE).toBe(ctx.keyspace);
    expect(config.CASSANDRA_CONTACT_POINTS).toEqual(ctx.contactPoints);
    expect(config.CASSANDRA_PORT).toBe(ctx.port);
    expect(config.REDIS_URL).toBe(ctx.redisUrl);
  });

  it('runs Cassandra 5.0 and a Redis that answers PING', async () => {
    const rs = await client.execute('SELECT release_version FROM system.local');
    expect(String(rs.first()?.['release_version'])).toMatch(/^5\.0\./);
    // Over TLS too (a `rediss://` URL under tools/test-over-tls.ts), with REDIS_TLS_*.
    const redis = rawRedis(loadConfig(), { lazyConnect: true, retryStrategy: () => null });
    try {
      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('applies a conditional batch on a static version only when the version matches', async () => {
    const p = pk();
    const batch = (next: bigint, expected: bigint | null, v: bigint) =>
      client.batch(
        [
          {
            query: `UPDATE ${KS}.${TABLE} SET version = ? WHERE pk = ? IF version = ?`,
            params: [next, p, expected],
          },
          { query: `UPDATE ${KS}.${TABLE} SET v = ? WHERE pk = ? AND ck = ?`, params: [v, p, 1n] },
        ],
        { prepare: true },
      );
    expect((await batch(1n, null, 10n)).wasApplied()).toBe(true);
    expect((await batch(2n, 1n, 20n)).wasApplied()).toBe(true);
    const stale = await batch(3n, 1n, 30n);
    expect(stale.wasApplied()).toBe(false);
    expect(stale.first()?.['version']).toBe(2n);
    const row = (
      await client.execute(`SELECT v, version FROM ${KS}.${TABLE} WHERE pk = ?`, [p], {
        prepare: true,
      })
    ).first();
    expect([row?.['v'], row?.['version']]).toEqual([20n, 2n]);
  });

  it('reports live rows and tombstone cells through query tracing', async () => {
    const p = pk();
    await client.execute(`INSERT INTO ${KS}.${TABLE} (pk, ck, v) VALUES (?, ?, ?)`, [p, 1n, 1n], {
      prepare: true,
    });
    await client.execute(`INSERT INTO ${KS}.${TABLE} (pk, ck, v) VALUES (?, ?, ?)`, [p, 2n, null], {
      prepare: true,
    });
    const rs = await client.execute(`SELECT * FROM ${KS}.${TABLE} WHERE pk = ?`, [p], {
      prepare: true,
      traceQuery: true,
    });
    let activities: string[] = [];
    // Trace events are written asynchronously; poll briefly until the read event shows up.
    for (let i = 0; i < 20 && !activities.some((a) => /live rows/.test(a)); i++) {
      const trace = await client.metadata.getTrace(rs.info.traceId);
      activities = trace.events.map((e) => e.activity);
    }
    const read = activities.find((a) => /Read \d+ live rows and \d+ tombstone cells/.test(a));
    expect(read).toBe('Read 2 live rows and 1 tombstone cells');
  });

  // nodetool reaches the local Maven node over JMX; containers and remote clusters have their own.
  it.runIf(ctx.embeddedNode)(
    'exposes nodetool tablestats and sstablemetadata for the local node',
    async () => {
      const p = pk();
      await client.execute(
        `INSERT INTO ${KS}.${TABLE} (pk, ck, v) VALUES (?, ?, ?)`,
        [p, 1n, null],
        { prepare: true },
      );
      await flushTable(KS, TABLE);
      const stats = await tableStats(KS, TABLE);
      expect(stats.sstableCount).toBeGreaterThan(0);
      expect(stats.raw['SSTable count']).toBeDefined();
      const infos = await sstableTombstones(KS, TABLE);
      expect(infos.length).toBeGreaterThan(0);
      expect(infos.reduce((n, i) => n + i.tombstoneDropTimeCount, 0)).toBeGreaterThan(0);
    },
  );
});
