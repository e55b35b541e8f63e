/**
 * Start-up steps shared by `src/server.ts`, `src/embed.ts` and the CLIs: migrate or verify the
 * keyspace, connect a client bound to it, connect Redis, lease an ID worker, settle the secrets,
 * and what a serving process runs beside its app (Idempotency-Key records, background work).
 *
 * Nothing here provisions: the Cassandra comes from the configured contact points, or is handed
 * in as a `CassandraTarget` the caller found. Only the development tooling finds or starts local
 * stores (tools/infra/dev-stores.ts, run by tools/dev-start.ts and tools/cli.ts before this).
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import { createRedisGuard, type RedisGuard } from './cache/redis.js';
import {
  ConfigurationError,
  missingForProduction,
  NO_REDIS,
  type Config,
} from './config/config.js';
import { IdGenerator } from './domain/ids.js';
import { GridService } from './service/grid-service.js';
import { IdempotencyService } from './service/idempotency/idempotency.js';
import { scheduleAudits } from './service/read/audit-rounds.js';
import { createCassandraClient, cqlOf, type Cql } from './store/cassandra.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { applyMigrations } from './store/migrations.js';
import { assertMigrated } from './store/migration-status.js';
import { resolveWorker, type WorkerLease } from './store/worker-lease.js';

/** Where a Cassandra answers, and how this process came to it. */
export interface CassandraTarget {
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  readonly port: number;
  /** 'external' = configured contact points; 'reused' = already answering; 'started' = we launched it. */
  readonly origin: 'external' | 'reused' | 'started';
  readonly releaseVersion?: string;
  readonly pid?: number;
}

/**
 * Where a command's Cassandra is: the configuration (with a local ring's settings when the
 * development tooling found one) and the target. The product CLI takes the configured contact
 * points (`configuredCassandra`); the development CLI passes tools/infra/dev-stores.ts's.
 * `notes` hears what was chosen, `progress` (default: nobody) a local node's provisioning.
 */
export type FindCassandra = (
  config: Config,
  notes: (line: string) => void,
  progress?: (line: string) => void,
) => Promise<{ config: Config; target: CassandraTarget }>;

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
 * (config/config.ts `missingForProduction`), named at once.
 */
export function checkProductionSettings(config: Config, env?: Record<string, string | undefined>) {
  if (config.NODE_ENV !== 'production') return;
  const missing = missingForProduction(env);
  if (missing.length === 0) return;
  throw new ConfigurationError(
    `NODE_ENV=production needs ${missing.join(', ')}: production provisions nothing and generates ` +
      `no secret (REDIS_URL=${NO_REDIS} runs without Redis; docs/configuration.md)`,
  );
}

/**
 * The configured contact points as a target. Throws without them: this process provisions
 * nothing (in development `npm start` and `npm run regrid` find or start a local node first).
 */
export function configuredTarget(config: Config): CassandraTarget {
  if (config.CASSANDRA_CONTACT_POINTS.length === 0) {
    throw new ConfigurationError(
      config.NODE_ENV === 'production'
        ? 'CASSANDRA_CONTACT_POINTS is not set (production never provisions a node)'
        : 'CASSANDRA_CONTACT_POINTS is not set (a development checkout provisions a local node ' +
            'through `npm start` or `npm run regrid`)',
    );
  }
  return {
    contactPoints: config.CASSANDRA_CONTACT_POINTS,
    localDataCenter: config.CASSANDRA_LOCAL_DC,
    port: config.CASSANDRA_PORT,
    origin: 'external',
  };
}

/** The product's `FindCassandra`: the configuration as it is. */
export const configuredCassandra: FindCassandra = async (config) => ({
  config,
  target: configuredTarget(config),
});

/** Migrates or verifies the keyspace at `target`, then connects to it. Throws why not. */
export async function openCassandra(
  config: Config,
  log: (line: string) => void = (l) => console.log(l),
  schema: SchemaStep = 'apply',
  target: CassandraTarget = configuredTarget(config),
): Promise<CassandraSession> {
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
  return { target, client, cql: cqlOf(client) };
}

/**
 * The Redis guard, or undefined with REDIS_URL=none. Only connects: in development
 * tools/dev-start.ts starts a local redis-server first when nothing answers.
 */
export async function openRedis(
  config: Config,
  log: (line: string) => void,
): Promise<RedisGuard | undefined> {
  if (config.REDIS_URL === NO_REDIS) {
    log(`[redis] off (REDIS_URL=${NO_REDIS}): no cache, no move rate limit`);
    return undefined;
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
  const production = config.NODE_ENV === 'production';
  // With a key set (AUTH_JWKS_URL) user tokens need no secret; HS256 tokens are then refused.
  const keySet = config.AUTH_JWKS_URL !== undefined;
  if (!config.AUTH_JWT_SECRET && production && !keySet) {
    throw new ConfigurationError('AUTH_JWT_SECRET must be set in production');
  }
  if (!config.AUTH_JWT_SECRET && !config.CURSOR_SECRET && production && keySet) {
    throw new ConfigurationError('CURSOR_SECRET must be set in production with AUTH_JWKS_URL');
  }
  const jwtSecret = config.AUTH_JWT_SECRET ?? fresh();
  return {
    jwtSecret,
    cursorSecret: config.CURSOR_SECRET ?? (production ? jwtSecret : fresh()),
    // No development sign-in with a key set: its HS256 tokens would be refused.
    generated: !config.AUTH_JWT_SECRET && !keySet,
  };
}

/**
 * The service of a command that creates no posts (`regrid takedown`, `audit`, `flags`, `region`,
 * `import`): it takes no ID worker lease, so minting an ID is a bug.
 */
export function commandService(cql: Cql, config: Config, redis?: RedisGuard): GridService {
  const ids = {
    next(): bigint {
      throw new Error('regrid commands do not create posts');
    },
  };
  const cursorSecret = settleSecrets(config).cursorSecret;
  return new GridService({ cql, config, ids, cursorSecret, ...(redis ? { redis } : {}) });
}

/** The Idempotency-Key service of a serving process (src/server.ts, src/embed.ts). */
export const openIdempotency = (cql: Cql, config: Config, service: GridService) =>
  new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
  });

/**
 * A serving process's background work: the change sweeper, which rolls forward the versions a
 * crashed writer left unpublished (service/changes/sweeper.ts), and with AUDIT_EVERY_S the audit
 * rounds. `stop` ends both.
 */
export function startBackground(
  service: GridService,
  config: Config,
  onAuditError: (err: unknown) => void,
): { stop(): Promise<void> } {
  const sweeper = service.changes.startSweeper();
  const audits =
    config.AUDIT_EVERY_S > 0
      ? scheduleAudits(() => service.auditAll(), {
          everyMs: config.AUDIT_EVERY_S * 1000,
          onError: onAuditError,
        })
      : undefined;
  return {
    stop: async () => {
      await audits?.stop();
      await sweeper?.stop();
    },
  };
}
