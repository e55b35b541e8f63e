/**
 * The exit codes of every entry (the one table: docs/cli.md), the `regrid` CLI's commands and the
 * image's CMD (`node dist/main.js`, src/main.ts) alike, and the one-line message for a store that
 * cannot be reached, so no entry prints a driver's stack for a dead port.
 */
import type { ErrorCode } from '../domain/errors.js';

export const EXIT = {
  /** Done as asked. */
  ok: 0,
  /** Ran, and found something: audit findings, a ring node down, pending migrations, … */
  findings: 1,
  /** Bad arguments or configuration: nothing was done. */
  usage: 2,
  /** A store (or the tooling a command needs) is not there: nothing was done. */
  unavailable: 3,
} as const;

/** A usage error a command raises from deep inside (exit 2, message only). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface DriverError {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly innerErrors?: Record<string, { message?: string; code?: string } | undefined>;
}

const UNREACHABLE_NAMES: ReadonlySet<string> = new Set([
  'NoHostAvailableError',
  'OperationTimedOutError',
]);
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * One line naming the store and why, when `err` says a store could not be reached; undefined for
 * any other error. Duck-typed on the driver's error names so this module imports no driver.
 */
export function unreachableLine(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as DriverError;
  if (e.name && UNREACHABLE_NAMES.has(e.name)) {
    const hosts = Object.entries(e.innerErrors ?? {}).map(
      ([host, inner]) => `${host} (${inner?.code ?? firstLine(inner?.message) ?? 'no answer'})`,
    );
    const where = hosts.length > 0 ? hosts.join(', ') : firstLine(e.message);
    return `Cassandra unreachable: ${where}; check CASSANDRA_CONTACT_POINTS and CASSANDRA_PORT`;
  }
  if (e.code && UNREACHABLE_CODES.has(e.code)) return `store unreachable: ${firstLine(e.message)}`;
  return undefined;
}

/**
 * The exit code and the line (no stack) for what stopped an entry, for failures any command or
 * the server can meet: a store not there (3), a configuration error (2, `ConfigurationError`
 * from config.ts and bootstrap.ts), a domain error, or anything else (1, its message).
 */
export function failureOf(err: unknown): { readonly code: number; readonly line: string } {
  const unreachable = unreachableLine(err);
  if (unreachable) return { code: EXIT.unavailable, line: unreachable };
  const message = err instanceof Error ? err.message : String(err);
  const e = err as { name?: string; code?: string } | null;
  if (e?.name === 'LocalRingUnavailable') return { code: EXIT.unavailable, line: message };
  if (e?.name === 'ConfigurationError') return { code: EXIT.usage, line: message };
  if (e?.name === 'DomainError') {
    return { code: domainExit(e.code as ErrorCode), line: `${e.code}: ${message}` };
  }
  return { code: EXIT.findings, line: message };
}

function firstLine(text: string | undefined): string | undefined {
  return text?.split('\n')[0];
}

/** Bad input (or flag name) is a usage error; no such post a finding; a failed store, unavailable. */
export function domainExit(code: ErrorCode): number {
  if (code === 'invalid_request' || code === 'bad_cursor' || code === 'flag_not_found') {
    return EXIT.usage;
  }
  if (code.endsWith('_not_found') || code === 'post_not_on_grid') return EXIT.findings;
  return EXIT.unavailable;
}
