/**
 * The product's migration set (cql/, what `regrid migrate` and MIGRATE_ON_START apply) creates
 * no table of the load tester: its comparator tables are a set of their own
 * (tools/loadtest/cql/), applied by the load tester alone.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CQL_DIR, loadMigrationFiles } from '../../../src/store/migrations.js';

const tablesOf = (statements: readonly string[]) =>
  statements.flatMap((s) =>
    [...s.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/gi)].map((m) => m[1]!),
  );

describe('the product migration set', () => {
  it('creates the service tables and none of the load tester', async () => {
    const tables = (await loadMigrationFiles(DEFAULT_CQL_DIR)).flatMap((f) =>
      tablesOf(f.statements),
    );
    expect(tables).toContain('grid_overrides');
    expect(tables.filter((t) => t.startsWith('naive_'))).toEqual([]);
  });
});
