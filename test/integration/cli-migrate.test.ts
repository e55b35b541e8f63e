/**
 * `regrid migrate` honours its arguments on the real node: --keyspace picks the keyspace,
 * --status changes nothing and exits 1 while migrations are pending, a plain run applies them,
 * and none of them creates the load tester's tables (tools/loadtest/migrations.ts applies those).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runDevCli as runCli } from '../../tools/cli/dev-commands.js';
import { createCassandraClient } from '../../src/store/cassandra.js';
import { TEST_KEYSPACE, testConfig } from './support/stores.js';

const KS = `${TEST_KEYSPACE}_mig`;

afterAll(async () => {
  const client = createCassandraClient(testConfig());
  await client.execute(`DROP KEYSPACE IF EXISTS ${KS}`).catch(() => undefined);
  await client.shutdown();
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: out.length === 1 ? JSON.parse(out[0]!) : undefined };
}

describe('regrid migrate', () => {
  it('--status on a new keyspace lists every file pending, exits 1 and creates nothing', async () => {
    const before = await cli('migrate', '--keyspace', KS, '--status', '--json');
    expect(before.code).toBe(1);
    expect(before.json.keyspace).toBe(KS);
    expect(before.json.applied).toEqual([]);
    expect(before.json.pending).toContain('001_core');
    const client = createCassandraClient(testConfig());
    const rs = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [KS], { prepare: true }); // prettier-ignore
    await client.shutdown();
    expect(rs.rowLength).toBe(0);
  });

  it('applies them to --keyspace; then --status is clean (exit 0) and a rerun applies nothing', async () => {
    const pending = (await cli('migrate', '--keyspace', KS, '--status', '--json')).json.pending;
    const run = await cli('migrate', '--keyspace', KS, '--json');
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ keyspace: KS, applied: pending, pending: [] });
    const after = await cli('migrate', '--keyspace', KS, '--status', '--json');
    expect(after.code).toBe(0);
    expect(after.json).toEqual({ keyspace: KS, applied: pending, pending: [] });
    expect((await cli('migrate', '--keyspace', KS, '--json')).json.applied).toEqual([]);
    // The load tester's comparator tables are its own migration set, never a production one's.
    const client = createCassandraClient(testConfig());
    const rs = await client.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [KS], { prepare: true }); // prettier-ignore
    await client.shutdown();
    const tables = rs.rows.map((r) => r.get('table_name') as string);
    expect(tables).toContain('grid_overrides');
    expect(tables.filter((t) => t.startsWith('naive_'))).toEqual([]);
  }, 300_000);
});
