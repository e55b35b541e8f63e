/**
 * The service process: configuration checks → Cassandra and migrations → Redis → ID worker
 * lease → service → HTTP server, with a graceful shutdown on SIGINT/SIGTERM. Provisions
 * nothing: `src/main.ts` (production, `node dist/main.js`) starts it on the configured stores;
 * `npm start` (tools/dev-start.ts) first finds or starts local ones and passes their target.
 * Production (NODE_ENV=production) needs its settings (bootstrap.ts `checkProductionSettings`)
 * and verifies the keyspace instead of migrating it unless MIGRATE_ON_START=true.
 */
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import {
  checkProductionSettings,
  openCassandra,
  type CassandraTarget,
  openIdempotency,
  openIdGenerator,
  openRedis,
  startBackground,
  serverSchemaStep,
  settleSecrets,
} from './bootstrap.js';
import type { Config } from './config/config.js';
import { collectProcessMetrics } from './obs/registry.js';
import { otlpProtocolOf, startTracing } from './obs/tracing.js';
import { createLogger, logCallback } from './obs/logger.js';
import { recordBuildInfo, watchDriver } from './obs/metrics-platform.js';
import { version } from './obs/build-info.js';
import { issueToken } from './http/auth.js';
import { appSettingsOf, createApp } from './http/app.js';
import { serverOptionsOf } from './http/server-options.js';
import { deadlinesOf } from './http/deadline.js';
import { DEMO_PROFILE_ID, seedDemoGrid } from './service/demo.js';
import { GridService } from './service/grid-service.js';
import { makeReadiness } from './service/readiness.js';
import { quorumCheck } from './service/quorum.js';
import type { Logger } from './obs/logger.js';

/** The process's log, as the server writes it (a development entry may log through it first). */
export function serverLogger(config: Config): Logger {
  return createLogger({
    level: config.LOG_LEVEL,
    nodeEnv: config.NODE_ENV,
    bufferBytes: 4096, // flushed at least every 250 ms (obs/logger.ts)
  });
}

export interface StartOptions {
  /** Where Cassandra answers; default the configured contact points (configuredTarget). */
  readonly cassandra?: CassandraTarget;
  /** Default `serverLogger(config)`. */
  readonly logger?: Logger;
}

/**
 * Connects, serves, and shuts down on SIGINT/SIGTERM (the process exits then). Resolves once
 * the listener is asked to open; throws (before listening) why it cannot start.
 */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<void> {
  checkProductionSettings(config);
  collectProcessMetrics();
  const logger = opts.logger ?? serverLogger(config);
  const log = (line: string) => logger.info(line);
  // Before the stores and the app: their spans need it (docs/operating.md "Tracing").
  const tracing = await startTracing(version);
  if (tracing) log(`[tracing] OTLP traces on (${otlpProtocolOf()})`);
  const secrets = settleSecrets(config);

  const cassandra = await openCassandra(config, log, serverSchemaStep(config), opts.cassandra);
  const redis = await openRedis(config, log);

  let shuttingDown = false;
  const { ids, lease } = await openIdGenerator(cassandra.cql, config, (worker, reason) => {
    // Two processes must never share a worker number: stop rather than risk duplicate IDs.
    logger.fatal(`[ids] lost worker lease ${worker}: ${reason}; shutting down`);
    void shutdown(1);
  });
  log(`[ids] worker ${lease.worker} (${lease.owner === 'config' ? 'configured' : 'leased'})`);

  const service = new GridService({
    cql: cassandra.cql,
    config,
    ids,
    cursorSecret: secrets.cursorSecret,
    hooks: { log: logCallback(logger.child({ component: 'grid' })) },
    // Read cache, post-commit invalidation and the move rate limit (src/cache/).
    redis,
  });
  // Development: the demo profile the editor opens on gets posts the first time (never in a
  // deployment with real secrets, so never in production; `npm run seed:demo` adds more).
  if (secrets.generated && (await service.readHead(DEMO_PROFILE_ID)).version === 0n) {
    const seeded = await seedDemoGrid(service, DEMO_PROFILE_ID, { posts: 60 });
    log(`[demo] profile ${DEMO_PROFILE_ID}: ${seeded.created} posts seeded`);
  }
  const appDeps = {
    service,
    idempotency: openIdempotency(cassandra.cql, config, service),
    ...appSettingsOf(config, logCallback(logger.child({ component: 'auth' }), 'warn')),
    jwtSecret: secrets.jwtSecret,
    readiness: makeReadiness({
      cql: cassandra.cql,
      redis,
      timeoutMs: config.READYZ_TIMEOUT_MS,
      draining: () => shuttingDown,
      quorum: quorumCheck(cassandra.client, config),
    }),
    deadlines: deadlinesOf(config),
    log: logCallback(logger.child({ component: 'http' })),
    logger,
    ...(tracing ? { tracing } : {}),
    editorRoot: fileURLToPath(new URL('../web/dist', import.meta.url)),
    ...(secrets.generated
      ? { devTokens: { profileId: DEMO_PROFILE_ID, ttlS: config.AUTH_MAX_TOKEN_LIFETIME_S } }
      : {}),
  };
  // ADMIN_PORT set: the public port serves the API alone; the operator's pages (and the API the
  // editor calls) answer on the admin listener. One service, one registry, one key-set cache.
  const separate = config.ADMIN_PORT !== undefined;
  const app = createApp({ ...appDeps, ...(separate ? { surface: 'api' as const } : {}) });
  const adminApp = separate ? createApp(appDeps) : undefined;
  watchDriver(cassandra.client);
  await recordBuildInfo(cassandra.client);
  const auditLog = logCallback(logger.child({ component: 'audit' }), 'warn');
  const background = startBackground(service, config, (err) => auditLog('audit round failed', err));

  const banner = (base: string) => {
    if (secrets.generated) {
      void printDevBanner(base, secrets.jwtSecret, config.AUTH_MAX_TOKEN_LIFETIME_S);
    }
  };
  const server = serve({ fetch: app.fetch, ...serverOptionsOf(config) }, (info) => {
    const base = `http://${config.HOST}:${info.port}`;
    if (adminApp) return log(`regrid listening on ${base} (${config.NODE_ENV}): the API alone`);
    log(`regrid listening on ${base} (${config.NODE_ENV}); web editor at ${base}/`);
    banner(base);
  });
  const adminServer =
    adminApp &&
    serve(
      {
        fetch: adminApp.fetch,
        ...serverOptionsOf({ ...config, PORT: config.ADMIN_PORT!, HOST: config.ADMIN_HOST }),
      },
      (info) => {
        const base = `http://${config.ADMIN_HOST}:${info.port}`;
        log(`admin listener on ${base}: /metrics, /docs, web editor at ${base}/`);
        banner(base);
      },
    );

  async function shutdown(code: number, drainMs = 0): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true; // /readyz answers 503 from now on
    log(`shutting down…${drainMs > 0 ? ` (draining ${drainMs} ms first)` : ''}`);
    const force = setTimeout(() => process.exit(code || 1), drainMs + 10_000);
    force.unref();
    await new Promise((resolve) => setTimeout(resolve, drainMs));
    await Promise.all(
      [server, adminServer].map(
        (s) => s && new Promise<void>((resolve) => s.close(() => resolve())),
      ),
    );
    await background.stop();
    await lease.release();
    await Promise.allSettled([cassandra.client.shutdown(), redis?.close()]);
    await tracing?.shutdown().catch(() => undefined); // flushes the last spans
    process.exit(code);
  }
  process.once('SIGINT', () => void shutdown(0));
  const drainMs = config.SHUTDOWN_DRAIN_MS ?? (config.NODE_ENV === 'production' ? 5000 : 0);
  process.once('SIGTERM', () => void shutdown(0, drainMs));
}

async function printDevBanner(base: string, secret: string, ttlS: number): Promise<void> {
  const token = await issueToken(secret, DEMO_PROFILE_ID, ttlS);
  console.log(
    [
      '',
      'Development mode: no AUTH_JWT_SECRET was configured, so one was generated for this run.',
      `  AUTH_JWT_SECRET=${secret}`,
      `  token for demo profile ${DEMO_PROFILE_ID} (valid ${ttlS} s):`,
      `  TOKEN=${token}`,
      '',
      `Web editor: open ${base}/ (it signs in as profile ${DEMO_PROFILE_ID} by itself).`,
      'Try:',
      `  curl -s -X POST ${base}/v1/me/posts -H "Authorization: Bearer $TOKEN" \\`,
      `       -H 'content-type: application/json' -d '{"caption":"hello"}'`,
      `  curl -s "${base}/v1/profiles/${DEMO_PROFILE_ID}/grid?limit=5"`,
      `  curl -s -X POST ${base}/v1/me/grid/moves -H "Authorization: Bearer $TOKEN" \\`,
      `       -H 'content-type: application/json' -d '{"post_id":"<id>","after":null}'`,
      '(the demo profile starts with 60 posts; npm run seed:demo adds a few hundred more.)',
      '',
    ].join('\n'),
  );
}
