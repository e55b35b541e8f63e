/**
 * Whether a keyspace holds every migration in cql/ (migrations.ts applies them): what a production
 * server checks before it serves, so that a keyspace missing a table or a column fails start-up
 * with one clear message instead of failing request by request; and what `regrid migrate
 * --status` lists (cli/cmd-migrate.ts).
 */
import { types, type Client } from 'cassandra-driver';
import { DEFAULT_CQL_DIR, loadMigrationFiles } from './migrations.js';

export interface SchemaStatus {
  readonly keyspaceExists: boolean;
  /** Files recorded as applied. */
  readonly applied: readonly string[];
  /** Files not recorded as applied (all of them when the keyspace is missing). */
  readonly pending: readonly string[];
  /** Files applied with other contents than they have now. */
  readonly changed: readonly string[];
  readonly total: number;
}

export async function schemaStatus(
  client: Client,
  keyspace: string,
  dir = DEFAULT_CQL_DIR,
): Promise<SchemaStatus> {
  const files = await loadMigrationFiles(dir);
  // LOCAL_QUORUM, not QUORUM: a region must be able to verify its schema (a production server's
  // start, `regrid region failover`) while another region is down (docs/regions.md "Losing a
  // region"). The rows were written at QUORUM, which reaches every region's replicas.
  const opts = { prepare: true, consistency: types.consistencies.localQuorum };
  const ks = await client.execute(
    'SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?',
    [keyspace],
    opts,
  );
  const all = files.map((f) => f.id);
  if (!ks.first()) {
    return { keyspaceExists: false, applied: [], pending: all, changed: [], total: all.length };
  }
  const table = await client.execute(
    'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
    [keyspace, 'schema_migrations'],
    opts,
  );
  // The runner writes these rows with LWTs at SERIAL, committed at QUORUM.
  const rows = table.first()
    ? (
        await client.execute(
          `SELECT id, checksum, status FROM ${keyspace}.schema_migrations`,
          [],
          opts,
        )
      ).rows
    : [];
  const byId = new Map(rows.map((r) => [String(r.get('id')), r]));
  const applied = new Set(all.filter((id) => byId.get(id)?.get('status') === 'applied'));
  return {
    keyspaceExists: true,
    applied: [...applied],
    pending: all.filter((id) => !applied.has(id)),
    changed: files
      .filter((f) => {
        const recorded = byId.get(f.id)?.get('checksum') as string | null | undefined;
        return !!recorded && recorded !== f.checksum;
      })
      .map((f) => f.id),
    total: files.length,
  };
}

/** Throws a message that says what is missing and what to run, unless every file is applied. */
export async function assertMigrated(client: Client, keyspace: string, dir?: string) {
  const s = await schemaStatus(client, keyspace, dir);
  const remedy =
    'run `regrid migrate` (node dist/cli.js migrate, or npm run migrate in a checkout) first, ' +
    'or set MIGRATE_ON_START=true';
  if (!s.keyspaceExists) throw new Error(`keyspace ${keyspace} does not exist: ${remedy}`);
  if (s.changed.length > 0) {
    throw new Error(
      `keyspace ${keyspace}: migrations changed after they were applied (${s.changed.join(', ')}); ` +
        'add a new migration instead of editing one',
    );
  }
  if (s.pending.length > 0) {
    const shown = s.pending.slice(0, 5).join(', ') + (s.pending.length > 5 ? ', …' : '');
    throw new Error(
      `keyspace ${keyspace} is not migrated (${s.pending.length} of ${s.total} migrations ` +
        `pending: ${shown}): ${remedy}`,
    );
  }
}
