/**
 * The migration runner on the real Cassandra, with a scratch keyspace and scratch .cql files:
 * two runners racing apply each file exactly once (a counter increment would show a second
 * application), a third run skips everything, and an edited applied file is refused.
 * Also: two processes never lease the same ID worker number, and the project's own migrations cap
 * speculative retry on every table a request reads (cql/018_speculative_retry.cql).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { createCassandraClient, cqlOf } from '../../../src/store/cassandra.js';
import { applyMigrations } from '../../../src/store/migrations.js';
import { TEST_KEYSPACE } from '../support/stores.js';
import { leaseWorker } from '../../../src/store/worker-lease.js';

const KEYSPACE = `regrid_mig_${process.pid}_${Date.now() % 100000}`;
let config: Config;
let clients: Client[] = [];
let dir: string;

beforeAll(async () => {
  config = loadConfig(process.env, { NODE_ENV: 'test' });
  clients = [createCassandraClient(config), createCassandraClient(config)];
  await Promise.all(clients.map((c) => c.connect()));
  dir = await mkdtemp(join(tmpdir(), 'regrid-cql-'));
  await writeFile(
    join(dir, '001_first.cql'),
    `-- a comment; with a semicolon
     CREATE TABLE IF NOT EXISTS notes (id text PRIMARY KEY, body text); /* block; comment */
     CREATE TABLE IF NOT EXISTS hits (id text PRIMARY KEY, n counter);`,
  );
  await writeFile(
    join(dir, '002_second.cql'),
    `INSERT INTO notes (id, body) VALUES ('semi', 'a;b''c');
     // a non-idempotent statement: applied twice, the counter would read 2
     UPDATE hits SET n = n + 1 WHERE id = 'applied';`,
  );
});

afterAll(async () => {
  await clients[0]?.execute(`DROP KEYSPACE IF EXISTS ${KEYSPACE}`).catch(() => undefined);
  await Promise.all(clients.map((c) => c.shutdown()));
  await rm(dir, { recursive: true, force: true });
});

describe('applyMigrations', () => {
  it('racing runners apply each file exactly once; a rerun skips; an edited file is refused', async () => {
    const [a, b] = await Promise.all(
      clients.map((c) => applyMigrations(c, config, KEYSPACE, { dir })),
    );
    expect([...a!.applied, ...b!.applied].sort()).toEqual(['001_first', '002_second']);
    expect([...a!.skipped, ...b!.skipped].sort()).toEqual(['001_first', '002_second']);

    const again = await applyMigrations(clients[0]!, config, KEYSPACE, { dir });
    expect(again).toEqual({ applied: [], skipped: ['001_first', '002_second'] });

    const c = clients[0]!;
    const hits = await c.execute(`SELECT n FROM ${KEYSPACE}.hits WHERE id = 'applied'`);
    expect(hits.first().get('n').toString()).toBe('1');
    const note = await c.execute(`SELECT body FROM ${KEYSPACE}.notes WHERE id = 'semi'`);
    expect(note.first().get('body')).toBe("a;b'c");
    const recorded = await c.execute(
      `SELECT id, status, checksum, applied_at FROM ${KEYSPACE}.schema_migrations`,
    );
    expect(recorded.rows.map((r) => r.get('status'))).toEqual(['applied', 'applied']);
    expect(
      recorded.rows.every((r) => /^[0-9a-f]{64}$/.test(r.get('checksum')) && r.get('applied_at')),
    ).toBe(true);

    await writeFile(join(dir, '002_second.cql'), `UPDATE hits SET n = n + 5 WHERE id = 'applied';`);
    await expect(applyMigrations(c, config, KEYSPACE, { dir })).rejects.toThrow(
      /changed after it was applied/,
    );
  });
});

describe('worker leases', () => {
  it('two processes never hold the same worker number', async () => {
    const bound = [0, 1].map(() => createCassandraClient(config, { keyspace: TEST_KEYSPACE }));
    await Promise.all(bound.map((c) => c.connect()));
    try {
      const leases = await Promise.all(bound.map((c) => leaseWorker(cqlOf(c), { ttlSeconds: 30 })));
      expect(leases[0]!.worker).not.toBe(leases[1]!.worker);
      // The lease is really held: claiming that exact number again is refused by the LWT.
      const again = await bound[0]!.execute(
        'INSERT INTO id_worker_leases (worker, owner, leased_at) VALUES (?, ?, ?) IF NOT EXISTS',
        [leases[1]!.worker, 'intruder', new Date()],
        { prepare: true },
      );
      expect(again.wasApplied()).toBe(false);
      await Promise.all(leases.map((l) => l.release()));
    } finally {
      await Promise.all(bound.map((c) => c.shutdown()));
    }
  });
});

describe("the project's schema", () => {
  it('every table a request reads retries a slow replica after at most 50 ms', async () => {
    const c = clients[0]!;
    const rs = await c.execute(
      'SELECT table_name, speculative_retry FROM system_schema.tables WHERE keyspace_name = ?',
      [TEST_KEYSPACE],
      { prepare: true },
    );
    const retry = new Map(rs.rows.map((r) => [r.get('table_name'), r.get('speculative_retry')]));
    const read = [
      'posts',
      'grid_posts',
      'grid_overrides',
      'grid_display_copy',
      'idempotency_keys',
      'archived_posts',
      'archived_by_time',
      'grid_invites',
      'invite_blocks',
      'invites_sent',
      'flags',
    ];
    expect(Object.fromEntries(read.map((t) => [t, retry.get(t)]))).toEqual(
      Object.fromEntries(read.map((t) => [t, 'MIN(99p,50ms)'])),
    );
  });
});
