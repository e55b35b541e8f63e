/**
 * regrid inside another program (docs/embedding.md): the service and its Hono app over a
 * cassandra-driver Client and an ioredis connection that the host owns, to mount with
 * `host.route('/prefix', app)`. The same wiring as src/server.ts minus what belongs to a process:
 * no provisioning, no HTTP server, no signal handlers, no web editor, no development sign-in.
 * The host's clients are checked before anything is served: a Cassandra client with the
 * driver's default encoding returns CQL bigint as Long objects, and every request would fail
 * while /readyz said ready. `drain()` turns /readyz to 503 for the host's shutdown; `close()`
 * releases what regrid holds (its ID worker lease, its audit rounds, its change sweeper) and leaves the host's
 * connections open.
 */
import type { Hono } from 'hono';
import type { Tracer } from '@opentelemetry/api';
import type { Client, ClientOptions } from 'cassandra-driver';
import { openIdempotency, openIdGenerator, startBackground } from './bootstrap.js';
import { createRedisGuard } from './cache/redis.js';
import type { RedisClient } from './cache/redis-client.js';
import { loadConfig, type Settings } from './config/config.js';
import { appSettingsOf, createApp } from './http/app.js';
import { deadlinesOf } from './http/deadline.js';
import type { AppEnv } from './http/env.js';
import { recordBuildInfo } from './obs/metrics-platform.js';
import { GridService } from './service/grid-service.js';
import { makeReadiness } from './service/readiness.js';
import { quorumCheck } from './service/quorum.js';
import { cqlOf } from './store/cassandra.js';
import { assertMigrated } from './store/migration-status.js';
import { applyMigrations } from './store/migrations.js';

export interface RegridOptions {
  /** Connected with `keyspace` = CASSANDRA_KEYSPACE (default `regrid`); the host owns it. */
  readonly cassandra: Client;
  /** An ioredis Redis or Cluster the host owns; undefined = no cache and no move rate limit. */
  readonly redis?: HostRedis | undefined;
  /**
   * Settings by their names (docs/configuration.md), the constants included; AUTH_JWT_SECRET is
   * required. The process environment is not read.
   */
  readonly config: Settings;
  /** regrid's warnings and errors (default: console.error). */
  readonly log?: (msg: string, err?: unknown) => void;
  /**
   * The ID worker lease was lost, so this process must stop writing (two writers with one worker
   * number could mint the same ID). Default: log, then SIGTERM to this process, as the server does.
   */
  readonly onWorkerLost?: (reason: string) => void;
  /**
   * The host's OpenTelemetry tracer (e.g. `trace.getTracer('regrid')` from the host's SDK): regrid's
   * spans (the request, the write line, each compare-and-set, CQL statements, Redis commands)
   * are made with it and exported by the host's provider. Unset: no spans.
   */
  readonly tracer?: Tracer;
}

/**
 * The host's ioredis connection as regrid's options type it: a few members of ioredis 5's and
 * 6's `Redis` and `Cluster` alike. Their classes have private members, so one major's class is
 * not assignable to the other's; the connection is used as the ioredis the host installed (a
 * peer dependency: one copy in the host's tree).
 */
export interface HostRedis {
  readonly status: string;
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
  ping(): Promise<string>;
}

export interface Regrid {
  readonly app: Hono<AppEnv>;
  readonly service: GridService;
  /**
   * From now on /readyz answers 503 `draining` while every other route still answers: call it
   * first on shutdown, wait for the balancer to notice, then close the server and `close()`.
   */
  drain(): void;
  /** Drains, stops regrid's background work and releases its worker lease; idempotent. */
  close(): Promise<void>;
}

/**
 * Throws, naming the setting, unless the host's client encodes as regrid's statements need:
 * CQL bigint as JS bigint (IDs and versions are bound and read as bigint), and `undefined` as
 * unset (the move path leaves columns untouched that way; a null would write a tombstone).
 */
function checkEncoding(client: Client): void {
  const encoding = (client as { options?: ClientOptions }).options?.encoding;
  if (encoding?.useBigIntAsLong !== true) {
    throw new Error(
      'createRegrid: the Cassandra client must be created with `encoding: { useBigIntAsLong: true }` ' +
        "(regrid's IDs and versions are CQL bigint; the driver's default returns them as Long " +
        'objects and every request would fail)',
    );
  }
  if (encoding.useUndefinedAsUnset === false) {
    throw new Error(
      'createRegrid: the Cassandra client must keep `encoding.useUndefinedAsUnset` true ' +
        "(the driver's default): regrid leaves columns unset with undefined, and a null is a tombstone",
    );
  }
}

export async function createRegrid(options: RegridOptions): Promise<Regrid> {
  const config = loadConfig({}, options.config);
  const log = options.log ?? ((msg: string, err?: unknown) => console.error(msg, err ?? ''));
  // With a key set (AUTH_JWKS_URL) no HS256 token verifies; the secret then only keys cursors.
  const jwtSecret = config.AUTH_JWT_SECRET ?? (config.AUTH_JWKS_URL && config.CURSOR_SECRET);
  if (!jwtSecret)
    throw new Error(
      'createRegrid: config.AUTH_JWT_SECRET is required (or AUTH_JWKS_URL with CURSOR_SECRET)',
    );
  const client = options.cassandra;
  checkEncoding(client);
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

  // The host's tracer, handed to the app (its request spans are where traced work starts).
  const tracing = options.tracer
    ? (await import('./obs/tracing-host.js')).hostRuntime(options.tracer)
    : undefined;
  const cql = cqlOf(client);
  let draining = false;
  const lost =
    options.onWorkerLost ??
    ((reason: string) => {
      log(`regrid: lost its ID worker lease (${reason}); sending SIGTERM`);
      process.kill(process.pid, 'SIGTERM');
    });
  const { ids, lease } = await openIdGenerator(cql, config, (_worker, reason) => lost(reason));
  const redis = options.redis
    ? createRedisGuard(config, { client: options.redis as RedisClient, log: (m) => log(m) })
    : undefined;
  const service = new GridService({
    cql,
    config,
    ids,
    cursorSecret: config.CURSOR_SECRET ?? jwtSecret,
    hooks: { log },
    redis,
  });
  const app = createApp({
    service,
    idempotency: openIdempotency(cql, config, service),
    ...appSettingsOf(config, log),
    ...(tracing ? { tracing } : {}),
    jwtSecret,
    readiness: makeReadiness({
      cql,
      redis,
      timeoutMs: config.READYZ_TIMEOUT_MS,
      draining: () => draining,
      // The replicas as the host's client sees them, in its local data center.
      quorum: quorumCheck(client, {
        ...config,
        CASSANDRA_LOCAL_DC: localDcOf(client) ?? config.CASSANDRA_LOCAL_DC,
      }),
    }),
    deadlines: deadlinesOf(config),
    log,
  });
  await recordBuildInfo(client);
  // The change sweeper as the server runs it: without it an embedded fleet never publishes the
  // versions a crashed writer left unpublished.
  const background = startBackground(service, config, (err) => log('audit round failed', err));

  let closed: Promise<void> | undefined;
  return {
    app,
    service,
    drain: () => {
      draining = true;
    },
    close: () =>
      (closed ??= (async () => {
        draining = true;
        await background.stop();
        await lease.release();
        await redis?.close(); // the guard's own listeners only: the host's connection stays open
      })()),
  };
}

const localDcOf = (client: Client): string | undefined =>
  (client as { options?: ClientOptions }).options?.localDataCenter;
