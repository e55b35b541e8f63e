/**
 * The process logger: JSON lines (pino) on stdout, one object per event, so a log pipeline can
 * index request IDs, routes and statuses without parsing prose. Human-readable output only for
 * a developer at a terminal (NODE_ENV=development and stdout a TTY), through pino-pretty, a
 * development dependency that production images do not ship.
 */
import { createRequire } from 'node:module';
import { destination, pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  readonly level: Level | 'silent';
  readonly nodeEnv?: string;
  /** Where lines go (tests capture them); stdout otherwise. */
  readonly destination?: DestinationStream;
  /**
   * Stdout lines are gathered up to this many bytes, and at most `flushMs` (default 250), before
   * one write (0 = each line as it comes). One write per request line was 3–4 % of a move's CPU.
   */
  readonly bufferBytes?: number;
  readonly flushMs?: number;
}

/** Never logged even if a caller hands them over: credentials and post content. */
const REDACT = [
  'authorization',
  'token',
  'password',
  'secret',
  'caption',
  'body',
  '*.authorization',
  '*.token',
  '*.caption',
  '*.body',
];

export function createLogger(opts: LoggerOptions): Logger {
  const base = { level: opts.level, base: { service: 'regrid' }, redact: REDACT };
  if (opts.destination) return pino(base, opts.destination);
  if (opts.nodeEnv === 'development' && process.stdout.isTTY && hasPretty()) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  const bufferBytes = opts.bufferBytes ?? 0;
  if (bufferBytes === 0) return pino(base);
  // Asynchronous and flushed on exit by pino (its on-exit hook); a hard kill loses at most the
  // buffer. The periodic flush bounds how late a line of a quiet process shows.
  return pino(
    base,
    destination({
      dest: 1,
      sync: false,
      minLength: bufferBytes,
      periodicFlush: opts.flushMs ?? 250,
    } as Parameters<typeof destination>[0]),
  );
}

/**
 * The logger of the one-line-per-request log (http/observe.ts), without redaction: that line has
 * a fixed set of fields, none of them a redacted name (a unit test holds it to that), and the
 * redaction pass was half the cost of writing it.
 */
export const requestLogger = (logger: Logger): Logger => logger.child({}, { redact: [] });

/** For wiring that has no logger configured (tests, tools): metrics still run, lines do not. */
export const silentLogger: Logger = pino({ level: 'silent' });

function hasPretty(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * The `(msg, err?)` callbacks the service layers take (writer hooks, cache, HTTP), as logger
 * calls: a cause string stays a field, an Error is serialised with its stack by pino.
 */
export function logCallback(logger: Logger, level: 'warn' | 'error' = 'error') {
  return (msg: string, err?: unknown): void => {
    if (err === undefined) logger[level](msg);
    else if (err instanceof Error) logger[level]({ err }, msg);
    else logger[level]({ cause: String(err) }, msg);
  };
}
