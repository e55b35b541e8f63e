/**
 * `regrid migrate [--keyspace NAME] [--status|--dry-run] [--json]` (`npm run migrate`): create
 * the keyspace and apply `cql/*.cql`, or only say what is applied and what is pending. Safe to
 * run repeatedly and from several processes (store/migrations.ts). Cassandra is where `find`
 * says (commands.ts): the contact points, or in a checkout the local ring or node.
 */
import type { FindCassandra } from '../bootstrap.js';
import { ConfigSchema, loadConfig } from '../config/config.js';
import { createCassandraClient } from '../store/cassandra.js';
import { schemaStatus } from '../store/migration-status.js';
import { applyMigrations } from '../store/migrations.js';
import type { Parsed } from './command-specs.js';
import { EXIT, UsageError } from './exit-codes.js';
import type { Io } from './regrid-commands.js';

export async function run(
  { values, positionals }: Parsed,
  io: Io,
  find: FindCassandra,
): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  let config = loadConfig();
  if (values['keyspace'] !== undefined) {
    const ks = ConfigSchema.shape.CASSANDRA_KEYSPACE.safeParse(values['keyspace']);
    if (!ks.success)
      throw new UsageError(`--keyspace: not a keyspace name: '${values['keyspace']}'`);
    config = { ...config, CASSANDRA_KEYSPACE: ks.data };
  }
  const json = values['json'] === true;
  const dryRun = values['status'] === true || values['dry-run'] === true;
  const found = await find(
    config,
    (l) => io.err(l),
    (l) => io.err(l),
  );
  config = found.config;
  const { target } = found;
  const keyspace = config.CASSANDRA_KEYSPACE;
  const client = createCassandraClient(config, {
    contactPoints: target.contactPoints,
    localDataCenter: target.localDataCenter,
    port: target.port,
  });
  try {
    await client.connect();
    if (dryRun) {
      const s = await schemaStatus(client, keyspace);
      if (json) io.out(JSON.stringify({ keyspace, applied: s.applied, pending: s.pending }));
      else {
        io.out(`keyspace ${keyspace}: ${s.applied.length} applied, ${s.pending.length} pending`);
        for (const id of s.pending) io.out(`  pending ${id}`);
      }
      return s.pending.length === 0 ? EXIT.ok : EXIT.findings;
    }
    const report = await applyMigrations(client, config, keyspace, {
      log: (l) => io.err(l),
    });
    if (json) io.out(JSON.stringify({ keyspace, applied: report.applied, pending: [] }));
    else {
      io.out(
        `keyspace ${keyspace} is up to date (${report.applied.length} applied now, ` +
          `${report.skipped.length} already)`,
      );
    }
    return EXIT.ok;
  } finally {
    await client.shutdown();
  }
}
