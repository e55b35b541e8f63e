/**
 * regrid inside another program (docs/embedding.md): the service and its Hono app over a
 * cassandra-driver Client and an ioredis connection that the host owns, to mount with
 * `host.route('/prefix', app)`. The same wiring as src/server.ts minus what belongs to a process:
 * no provisioning, no HTTP server, no signal handlers, no web editor, no development sign-in.
 * `close()` releases what regrid holds (its ID worker lease, its audit rounds) and leaves the
 * host's connections open.
 */
import type { Hono } from 'hono';
import type { Client } from 'cassandra-driver';
import { openIdGenerator } from './bootstrap.js';
import { createRedisGuard } from './cache/redis.js';
import type { RedisClient } from './cache/redis-client.js';
import { loadConfig } from './config.js';
import { appSettingsOf, createApp } from './http/app.js';
import { deadlinesOf } from './http/deadline.js';
import type { AppEnv } from './http/env.js';
import { releaseVersion, version } from './obs/build-info.js';
import { recordBuildInfo } from './obs/metrics-platform.js';
import { scheduleAudits } from './service/read/audit-rounds.js';
import { GridService } from './service/grid-service.js';
import { makeReadiness } from './service/readiness.js';
import { IdempotencyService } from './service/idempotency/idempotency.js';
import { cqlOf } from './store/cassandra.js';
import { cqlLimitsOf } from './store/cql-budget.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { assertMigrated } from './store/migration-status.js';
import { applyMigrations } from './store/migrations.js';

export interface RegridOptions {
  /** Connected with `keyspace` = CASSANDRA_KEYSPACE (default `regrid`); the host owns it. */
  readonly cassandra: Client;
  /** An ioredis Redis or Cluster the host owns; undefined = no cache and no move rate limit. */
  readonly redis?: RedisClient | undefined;
  /** Settings by their environment names (docs/configuration.md); AUTH_JWT_SECRET is required. */
  readonly config: Readonly<Record<string, string | undefined>>;
  /** regrid's warnings and errors (default: console.error). */
  readonly log?: (msg: string, err?: unknown) => void;
  /**
   * The ID worker lease was lost, so this process must stop writing (two writers with one worker
   * number could mint the same ID). Default: log, then SIGTERM to this process, as the server does.
   */
  readonly onWorkerLost?: (reason: string) => void;
}

export interface Regrid {
  readonly app: Hono<AppEnv>;
  readonly service: GridService;
  close(): Promise<void>;
}

export async function createRegrid(options: RegridOptions): Promise<Regrid> {
  const config = loadConfig({ ...options.config });
  const log = options.log ?? ((msg: string, err?: unknown) => console.error(msg, err ?? ''));
  // With a key set (AUTH_JWKS_URL) no HS256 token verifies; the secret then only keys cursors.
  const jwtSecret = config.AUTH_JWT_SECRET ?? (config.AUTH_JWKS_URL && config.CURSOR_SECRET);
  if (!jwtSecret)
    throw new Error(
      'createRegrid: config.AUTH_JWT_SECRET is required (or AUTH_JWKS_URL with CURSOR_SECRET)',
    );
  const client = options.cassandra;
  await client.connect(); // a no-op when the host has connected it
  const keyspace = config.CASSANDRA_KEYSPACE;
  if (client.keyspace !== keyspace) {
    throw new Error(
      `createRegrid: the Cassandra client must be connected with keyspace '${keyspace}' ` +
        `(its keyspace is ${client.keyspace ? `'${client.keyspace}'` : 'unset'})`,
    );
  }
  if (config.MIGRATE_ON_START) await applyMigrations(client, config, keyspace);
  else await assertMigrated(client, keyspace);

  const cql = cqlOf(client, cqlLimitsOf(config));
  const lost =
    options.onWorkerLost ??
    ((reason: string) => {
      log(`regrid: lost its ID worker lease (${reason}); sending SIGTERM`);
      process.kill(process.pid, 'SIGTERM');
    });
  const { ids, lease } = await openIdGenerator(cql, config, (_worker, reason) => lost(reason));
  const redis = options.redis
    ? createRedisGuard(config, { client: options.redis, log: (m) => log(m) })
    : undefined;
  const service = new GridService({
    cql,
    config,
    ids,
    cursorSecret: config.CURSOR_SECRET ?? jwtSecret,
    hooks: { log },
    redis,
  });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
  });
  const app = createApp({
    service,
    idempotency,
    ...appSettingsOf(config, log),
    jwtSecret,
    readiness: makeReadiness({ cql, redis, timeoutMs: config.READYZ_TIMEOUT_MS }),
    deadlines: deadlinesOf(config),
    log,
  });
  recordBuildInfo({
    version,
    cassandraVersion: await releaseVersion(client),
    relabelPolicy: config.RELABEL_POLICY,
  });
  const audits =
    config.AUDIT_EVERY_S > 0
      ? scheduleAudits(() => service.auditAll(), {
          everyMs: config.AUDIT_EVERY_S * 1000,
          onError: (err) => log('audit round failed', err),
        })
      : undefined;

  let closed: Promise<void> | undefined;
  return {
    app,
    service,
    close: () =>
      (closed ??= (async () => {
        await audits?.stop();
        await lease.release();
        await redis?.close(); // the guard's own listeners only: the host's connection stays open
      })()),
  };
}
