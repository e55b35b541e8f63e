/**
 * Start-up steps shared by `src/main.ts` and the CLIs: get a Cassandra (provision or reuse the
 * local node unless contact points are configured), migrate the keyspace, connect a client bound
 * to it, lease an ID worker, and settle the secrets.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import type { Config } from './config.js';
import { IdGenerator } from './domain/ids.js';
import { ensureCassandra, type CassandraTarget } from './tools/infra/embedded-cassandra.js';
import { createCassandraClient, cqlOf, type Cql } from './store/cassandra.js';
import { cqlLimitsOf } from './store/cql-budget.js';
import { applyMigrations } from './store/migrations.js';
import { resolveWorker, type WorkerLease } from './store/worker-lease.js';

export interface CassandraSession {
  readonly target: CassandraTarget;
  /** Bound to the configured keyspace. */
  readonly client: Client;
  readonly cql: Cql;
}

/** Provision/reuse, migrate, connect. Throws with the reason when any step fails. */
export async function openCassandra(
  config: Config,
  log: (line: string) => void = (l) => console.log(l),
): Promise<CassandraSession> {
  const target = await ensureCassandra(config, { log: (l) => log(`[cassandra] ${l}`) });
  const where = {
    contactPoints: target.contactPoints,
    localDataCenter: target.localDataCenter,
    port: target.port,
  };
  const admin = createCassandraClient(config, where);
  try {
    await admin.connect();
    await applyMigrations(admin, config, config.CASSANDRA_KEYSPACE, { log });
  } finally {
    await admin.shutdown();
  }
  const client = createCassandraClient(config, { ...where, keyspace: config.CASSANDRA_KEYSPACE });
  await client.connect();
  return { target, client, cql: cqlOf(client, cqlLimitsOf(config)) };
}

/** The configured worker number, or one leased from Cassandra (renewed until released). */
export async function openIdGenerator(
  cql: Cql,
  config: Config,
  onLost: (worker: number, reason: string) => void,
): Promise<{ ids: IdGenerator; lease: WorkerLease }> {
  const lease = await resolveWorker(cql, config.WORKER_ID, { onLost });
  return { ids: new IdGenerator(lease.worker), lease };
}

export interface Secrets {
  readonly jwtSecret: string;
  readonly cursorSecret: string;
  /** True when the JWT secret was generated for this run (development only). */
  readonly generated: boolean;
}

/**
 * AUTH_JWT_SECRET and CURSOR_SECRET. In development a missing one is generated for this run
 * (tokens and cursors then stop working after a restart); elsewhere a missing JWT secret is fatal.
 */
export function settleSecrets(config: Config): Secrets {
  const fresh = () => randomBytes(32).toString('base64url');
  if (!config.AUTH_JWT_SECRET && config.NODE_ENV === 'production') {
    throw new Error('AUTH_JWT_SECRET must be set in production');
  }
  const jwtSecret = config.AUTH_JWT_SECRET ?? fresh();
  return {
    jwtSecret,
    cursorSecret: config.CURSOR_SECRET ?? (config.NODE_ENV === 'production' ? jwtSecret : fresh()),
    generated: !config.AUTH_JWT_SECRET,
  };
}
