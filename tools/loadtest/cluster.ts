/**
 * The load tester's Cassandra connection, obtained exactly as `npm start` obtains it
 * (tools/infra/dev-stores.ts, then openCassandra in src/bootstrap.ts): the configured cluster (CASSANDRA_CONTACT_POINTS …) when
 * there is one, else the local node that regrid provisions or reuses; then the migrations
 * (idempotent), then a client bound to the keyspace.
 */
import type { Client } from 'cassandra-driver';
import { openLocalCassandra } from '../infra/dev-stores.js';
import type { Config } from '../../src/config/config.js';
import type { CassandraTarget } from '../../src/bootstrap.js';

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
  const { target, client } = await openLocalCassandra(config, log);
  const rs = await client.execute('SELECT release_version FROM system.local');
  return {
    client,
    keyspace: config.CASSANDRA_KEYSPACE,
    target,
    releaseVersion: String(rs.first()?.get('release_version') ?? 'unknown'),
    close: () => client.shutdown(),
  };
}
