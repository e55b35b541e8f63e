/**
 * The app as src/server.ts wires it, for the HTTP benchmarks: per-request deadlines and the
 * request log at the configured level through pino's asynchronous stream, pointed at the null
 * device (only the target differs from production), so a benchmark never leaves out what a
 * production request pays for.
 */
import type { TracingRuntime } from '../../src/obs/tracing.js';
import { devNull } from 'node:os';
import { destination } from 'pino';
import type { Config } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { deadlinesOf } from '../../src/http/deadline.js';
import { createLogger, logCallback, type Logger } from '../../src/obs/logger.js';
import type { GridService } from '../../src/service/grid-service.js';

/** The production request logger, writing to the null device. */
export const nullDeviceLogger = (config: Config): Logger =>
  createLogger({
    level: config.LOG_LEVEL,
    destination: destination({ dest: devNull, sync: false }),
  });

export function productionApp(
  service: GridService,
  opts: { secret: string; config: Config; logger: Logger; tracing?: TracingRuntime },
) {
  const { secret, config, logger } = opts;
  return createApp({
    ...(opts.tracing ? { tracing: opts.tracing } : {}),
    service,
    jwtSecret: secret,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ready: true, checks: {} }),
    deadlines: deadlinesOf(config),
    log: logCallback(logger.child({ component: 'http' })),
    logger,
  });
}
