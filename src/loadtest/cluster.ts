/**
 * The load tester's Cassandra connection, obtained the way `npm start` does it: the configured
 * cluster (CASSANDRA_CONTACT_POINTS …) when there is one, else the local node that regrid
 * provisions or reuses; then the migrations (idempotent), then a client bound to the keyspace.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../config.js';
import { ensureCassandra, type CassandraTarget } from '../infra/embedded-cassandra.js';
import { createCassandraClient } from '../store/cassandra.js';
import { applyMigrations } from '../store/migrations.js';

export interface LoadtestCluster {
  readonly client: Client;
  readonly keyspace: string;
  readonly target: CassandraTarget;
  /** Cassandra's release_version as the coordinator reports it. */
  readonly releaseVersion: string;
  close(): Promise<void>;
}

export async function connectCluster(
  config: Config,
  log: (line: string) => void,
): Promise<LoadtestCluster> {
  const target = await ensureCassandra(config, { log });
  const at = {
    contactPoints: target.contactPoints,
    localDataCenter: target.localDataCenter,
    port: target.port,
  };
  const admin = createCassandraClient(config, at);
  try {
    await applyMigrations(admin, config, config.CASSANDRA_KEYSPACE, { log });
  } finally {
    await admin.shutdown();
  }
  const client = createCassandraClient(config, { ...at, keyspace: config.CASSANDRA_KEYSPACE });
  await client.connect();
  const rs = await client.execute('SELECT release_version FROM system.local');
  return {
    client,
    keyspace: config.CASSANDRA_KEYSPACE,
    target,
    releaseVersion: String(rs.first()?.get('release_version') ?? 'unknown'),
    close: () => client.shutdown(),
  };
}
