/**
 * The load tester's scenarios on real Cassandra, through the whole session (workload, checker,
 * tombstone accounting, the ceilings of the same run, the JSON file): a tiny `uncontended` and a
 * tiny `hot` run in direct mode report their fields, the ratios are the quotients of the figures
 * they report, and the checker finds nothing. The PostgreSQL peer (skipped when no PostgreSQL
 * answers) reports the same fields against its own floor.
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'cassandra-driver';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { DesignName, GridDesign } from '../../tools/loadtest/design.js';
import { postgresDown, testCluster } from './support/loadtest.js';
import { parseOptions } from '../../tools/loadtest/options.js';
import { PostgresDesign } from '../../tools/loadtest/postgres-design.js';
import { RegridDirectDesign } from '../../tools/loadtest/regrid-direct-design.js';
import { runSession, type SessionDeps } from '../../tools/loadtest/session.js';
import { createCassandraClient } from '../../src/store/cassandra.js';

const ctx = inject('integration');
const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/regrid_bench';
const PG_SCHEMA = `loadtest_scen_${process.pid}`;
const jsonPath = (name: string) => join(tmpdir(), `regrid-scenario-${process.pid}-${name}.json`);
let config: Config;
let client: Client;
let deps: SessionDeps;

const down = await postgresDown(PG_URL);

const tiny = (scenario: string, extra: string[]) =>
  parseOptions([
    '--scenario', scenario, '--posts', '10', '--samples', '2', '--seed', '5',
    '--no-progress', '--no-table-metrics', '--json', jsonPath(scenario), ...extra,
  ]); // prettier-ignore

beforeAll(async () => {
  config = loadConfig(process.env, { CASSANDRA_KEYSPACE: ctx.keyspace });
  client = createCassandraClient(config, { keyspace: ctx.keyspace });
  await client.connect();
  const cluster = testCluster(client);
  const makeDesign = async (name: DesignName): Promise<GridDesign> =>
    name === 'postgres'
      ? PostgresDesign.create({ url: PG_URL, poolSize: 8, schema: PG_SCHEMA })
      : RegridDirectDesign.create(client, config);
  deps = { config, cluster, makeDesign, log: () => {}, tableMetrics: false };
});

afterAll(async () => {
  await client?.shutdown();
  for (const s of ['uncontended', 'hot', 'pg']) await rm(jsonPath(s), { force: true });
  if (!down) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    await c.end();
  }
});

const readJson = async (name: string) =>
  JSON.parse(await readFile(jsonPath(name), 'utf8')) as Record<string, unknown> & {
    violations: unknown[];
  };

describe('load-test scenarios on real Cassandra', () => {
  it('uncontended: one writer per profile, moves/s against the distinct-partition ceiling', async () => {
    const o = tiny('uncontended', ['--concurrency', '4', '--moves', '80']);
    const { runs } = await runSession(o, deps);
    const r = await readJson('uncontended');
    expect(r).toMatchObject({
      design: 'regrid',
      scenario: 'uncontended',
      profiles: 4,
      concurrency: 4,
      hot: 0,
      moves_attempted: 80,
      contention_503: 0,
      ceiling_store: 'cassandra',
      raw_partition_ceiling_per_s: null,
      partition_ceiling_ratio: null,
      tombstones_written: 0,
      violations: [],
    });
    const movesPerS = r.moves_per_s as number;
    const ceiling = r.raw_ceiling_per_s as number;
    expect(movesPerS).toBeGreaterThan(0);
    expect(ceiling).toBeGreaterThan(0);
    expect(r.ceiling_ratio).toBeCloseTo(movesPerS / ceiling, 3);
    // Every committed move sent one batch; only a lost or timed-out one sends another.
    const perMove = r.cas_attempts_per_move as number;
    const moves = r.moves as number;
    expect(perMove).toBeGreaterThan(0);
    expect(perMove * moves).toBeLessThanOrEqual(moves + (r.cas_retries as number) + 0.5);
    // Every grid was moved on (one writer each), and only by acknowledged moves of its own.
    for (const g of runs[0]!.grids) expect(g.acks.length).toBeGreaterThan(0);
  });

  it('hot: many writers on one profile, moves/s against one partition from one writer', async () => {
    const o = tiny('hot', ['--concurrency', '8', '--moves', '80']);
    await runSession(o, deps);
    const r = await readJson('hot');
    expect(r).toMatchObject({
      scenario: 'hot',
      profiles: 1,
      concurrency: 8,
      moves_attempted: 80,
      raw_ceiling_per_s: null,
      ceiling_ratio: null,
      ceiling_store: 'cassandra',
      cas_attempts_source: 'conditional batches sent (driver)',
      tombstones_written: 0,
      violations: [],
    });
    expect(r.contention_503).toBeGreaterThanOrEqual(0);
    expect(r.contention_503).toBeLessThanOrEqual(r.rejected as number);
    expect(r.moves as number).toBeGreaterThan(0);
    expect(r.cas_attempts_per_move as number).toBeGreaterThan(0);
    const floor = r.raw_partition_ceiling_per_s as number;
    expect(floor).toBeGreaterThan(0);
    expect(r.partition_ceiling_ratio).toBeCloseTo((r.moves_per_s as number) / floor, 3);
  });

  it.skipIf(down !== null)('postgres: the same fields, against its own floor', async () => {
    const o = parseOptions([
      '--design', 'postgres', '--scenario', 'hot', '--concurrency', '4', '--moves', '60',
      '--posts', '10', '--samples', '2', '--no-progress', '--json', jsonPath('pg'),
    ]); // prettier-ignore
    await runSession(o, deps);
    const r = await readJson('pg');
    expect(r).toMatchObject({
      design: 'postgres',
      scenario: 'hot',
      ceiling_store: 'postgres',
      cas_attempts_per_move: null,
      contention_503: 0,
      violations: [],
    });
    expect(r.partition_ceiling_ratio).toBeCloseTo(
      (r.moves_per_s as number) / (r.raw_partition_ceiling_per_s as number),
      3,
    );
  });
});
