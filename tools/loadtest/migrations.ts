/**
 * The load tester's own migration set (tools/loadtest/cql/): the naive comparator's tables. Kept
 * apart from cql/, which `regrid migrate`, MIGRATE_ON_START and createRegrid apply, so a
 * production keyspace never gets them; the load tester applies this set to the keyspace it runs
 * in, through the same runner (its files are recorded in the same `schema_migrations`, under
 * ids of their own: `loadtest_…`).
 */
import { fileURLToPath } from 'node:url';
import type { Client } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { applyMigrations } from '../../src/store/migrations.js';

export const LOADTEST_CQL_DIR = fileURLToPath(new URL('./cql/', import.meta.url));

/** Applies the load tester's set to `config`'s keyspace (idempotent, as the product's). */
export async function applyLoadtestMigrations(client: Client, config: Config): Promise<void> {
  await applyMigrations(client, config, config.CASSANDRA_KEYSPACE, { dir: LOADTEST_CQL_DIR });
}
