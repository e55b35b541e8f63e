/**
 * What the load tester's integration tests share: the test Cassandra as the session's cluster
 * (reused, never started or stopped by the session) and whether a PostgreSQL server answers.
 */
import type { Client } from 'cassandra-driver';
import pg from 'pg';
import { inject } from 'vitest';
import type { LoadtestCluster } from '../../../tools/loadtest/cluster.js';

/** The global setup's Cassandra, as the load tester's session sees a node it did not start. */
export function testCluster(client: Client): LoadtestCluster {
  const ctx = inject('integration');
  return {
    client,
    keyspace: ctx.keyspace,
    target: {
      contactPoints: ctx.contactPoints,
      localDataCenter: ctx.localDataCenter,
      port: ctx.port,
      origin: 'external',
    },
    releaseVersion: 'test',
    close: async () => {},
  };
}

/** Null when PostgreSQL at `url` answers, else why not (its own `postgres` database is probed). */
export async function postgresDown(url: string): Promise<string | null> {
  // The database may not exist yet (the design creates it): probe the server's own.
  const u = new URL(url);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.end();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
