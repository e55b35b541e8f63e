/**
 * Start-up steps shared by `src/main.ts` and the CLIs: get a Cassandra (the configured contact
 * points; in development only, the local node provisioned or reused), migrate or verify the
 * keyspace, connect a client bound to it, connect Redis, lease an ID worker, settle the secrets.
 *
 * Production never provisions: the local tooling (src/tools/infra/) is loaded by dynamic import
 * in development only, so a production process neither runs it nor loads it.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import { createRedisGuard, type RedisGuard } from './cache/redis.js';
import { missingForProduction, NO_REDIS, type Config } from './config.js';
import { IdGenerator } from './domain/ids.js';
import type { CassandraTarget } from './tools/infra/embedded-cassandra.js';
import { createCassandraClient, cqlOf, type Cql } from './store/cassandra.js';
import { cqlLimitsOf } from './store/cql-budget.js';
import { applyMigrations } from './store/migrations.js';
import { assertMigrated } from './store/migration-status.js';
import { resolveWorker, type WorkerLease } from './store/worker-lease.js';

export interface CassandraSession {
  readonly target: CassandraTarget;
  /** Bound to the configured keyspace. */
  readonly client: Client;
  readonly cql: Cql;
}

/** `apply` runs cql/ (the CLIs, development); `verify` refuses a keyspace missing any of it. */
export type SchemaStep = 'apply' | 'verify';

/** The server's step: production verifies unless MIGRATE_ON_START=true; development applies. */
export const serverSchemaStep = (config: Config): SchemaStep =>
  config.NODE_ENV === 'production' && !config.MIGRATE_ON_START ? 'verify' : 'apply';

/**
 * Production's settings check, before anything connects: every variable it must be told
 * (config.ts `missingForProduction`), named at once.
 */
export function checkProductionSettings(config: Config, env?: Record<string, string | undefined>) {
  if (config.NODE_ENV !== 'production') return;
  const missing = missingForProduction(env);
  if (missing.length === 0) return;
  throw new Error(
    `NODE_ENV=production needs ${missing.join(', ')}: production provisions nothing and generates ` +
      `no secret (REDIS_URL=${NO_REDIS} runs without Redis; docs/configuration.md)`,
  );
}

/** Finds (development: provisions or reuses), migrates or verifies, connects. Throws why not. */
export async function openCassandra(
  config: Config,
  log: (line: string) => void = (l) => console.log(l),
  schema: SchemaStep = 'apply',
): Promise<CassandraSession> {
  const target = await cassandraTarget(config, log);
  const where = {
    contactPoints: target.contactPoints,
    localDataCenter: target.localDataCenter,
    port: target.port,
  };
  const admin = createCassandraClient(config, where);
  try {
    await admin.connect();
    if (schema === 'apply') {
      await applyMigrations(admin, config, config.CASSANDRA_KEYSPACE, { log });
    } else {
      await assertMigrated(admin, config.CASSANDRA_KEYSPACE);
    }
  } finally {
    await admin.shutdown();
  }
  const client = createCassandraClient(config, { ...where, keyspace: config.CASSANDRA_KEYSPACE });
  await client.connect();
  return { target, client, cql: cqlOf(client, cqlLimitsOf(config)) };
}

async function cassandraTarget(config: Config, log: (line: string) => void) {
  if (config.CASSANDRA_CONTACT_POINTS.length > 0) {
    const target: CassandraTarget = {
      contactPoints: config.CASSANDRA_CONTACT_POINTS,
      localDataCenter: config.CASSANDRA_LOCAL_DC,
      port: config.CASSANDRA_PORT,
      origin: 'external',
    };
    return target;
  }
  if (config.NODE_ENV === 'production') {
    throw new Error('CASSANDRA_CONTACT_POINTS is not set (production never provisions a node)');
  }
  const { ensureCassandra } = await import('./tools/infra/embedded-cassandra.js');
  return ensureCassandra(config, { log: (l) => log(`[cassandra] ${l}`) });
}

/**
 * The Redis guard, or undefined with REDIS_URL=none. In development a local redis-server is
 * started first when nothing answers (src/tools/infra/redis-local.ts); production only connects.
 */
export async function openRedis(
  config: Config,
  log: (line: string) => void,
): Promise<RedisGuard | undefined> {
  if (config.REDIS_URL === NO_REDIS) {
    log(`[redis] off (REDIS_URL=${NO_REDIS}): no cache, no move rate limit`);
    return undefined;
  }
  if (config.NODE_ENV !== 'production') {
    const { ensureRedis } = await import('./tools/infra/redis-local.js');
    log(`[redis] ${(await ensureRedis(config, (l) => log(`[redis] ${l}`))).detail}`);
  }
  const redis = createRedisGuard(config, { log: (m) => log(`[redis] ${m}`) });
  await redis.waitReady(2000);
  return redis;
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
