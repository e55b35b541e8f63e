/**
 * Which Cassandra driver failures mean "the store is not there" (HTTP 503), and which of those
 * certainly never reached a replica (so a write was not applied). A Paxos (CAS) write timeout is
 * told apart: its outcome is unknown until the grid writer re-reads.
 */
import { errors, types } from 'cassandra-driver';
import { DomainError } from '../domain/errors.js';

export const isCasTimeout = (err: unknown): boolean =>
  err instanceof errors.ResponseError &&
  err.code === types.responseErrorCodes.writeTimeout &&
  (err as unknown as { writeType?: string }).writeType === 'CAS';

const c = types.responseErrorCodes;
/** The coordinator refused before touching any replica: nothing was written. */
const REFUSED_CODES: ReadonlySet<number> = new Set([
  c.unavailableException,
  c.overloaded,
  c.isBootstrapping,
]);
const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  ...REFUSED_CODES,
  c.readTimeout,
  c.readFailure,
  c.writeTimeout,
  c.writeFailure,
]);

/**
 * Turns "the store is not there" into DomainError('unavailable') (HTTP 503); anything else
 * (a bug, a schema error) is rethrown untouched so it surfaces as a 500 with its real message.
 */
export function mapUnavailable(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  const code = err instanceof errors.ResponseError ? err.code : undefined;
  if (
    err instanceof errors.NoHostAvailableError ||
    err instanceof errors.OperationTimedOutError ||
    (err as { isSocketError?: boolean } | undefined)?.isSocketError === true ||
    (code !== undefined && UNAVAILABLE_CODES.has(code))
  ) {
    return new DomainError(
      'unavailable',
      'Cassandra is unavailable',
      { cause: (err as Error).message },
      { cause: err },
    );
  }
  return err;
}

/** Raised by the wrapper itself before handing a statement to the driver. */
export class NotSent extends Error {
  override name = 'NotSent';
}
export const REFUSED_AFTER_DEADLINE =
  'refused after the deadline: the request was already answered';

/**
 * True when the statement certainly never reached a coordinator (so a write was not applied).
 * The shapes are cassandra-driver 4.10's (lib/request-handler.js, host-connection-pool.js,
 * prepare-handler.js, writers.js); anything else, a socket closed after the request was
 * written or a timeout, may have reached one.
 */
export function neverSent(err: unknown): boolean {
  if (err instanceof errors.BusyConnectionError || err instanceof NotSent) return true;
  if (err instanceof errors.ResponseError) return REFUSED_CODES.has(err.code);
  if (err instanceof errors.NoHostAvailableError) {
    // Thrown by the prepare handler (it tags the query): the PREPARE failed on every host, so
    // the statement itself was never sent, whatever each host answered the PREPARE.
    if (typeof (err as { query?: unknown }).query === 'string') return true;
    // Per host: a string ("Host considered as DOWN"), or the error that host answered with.
    const tried = Object.values(err.innerErrors as Record<string, unknown>);
    return tried.every((e) => typeof e === 'string' || neverSent(e));
  }
  return notConnected(err);
}

/** A connection that could not be borrowed or opened, or a socket that failed before writing. */
function notConnected(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.message === 'No connection available') return true; // the host's pool is empty
  const e = err as { requestNotWritten?: boolean; syscall?: string; innerError?: unknown };
  if (e.requestNotWritten === true || e.syscall === 'connect') return true;
  // "Socket was closed" on a connection that never opened (its cause is the connect error).
  return (e.innerError as { syscall?: string } | undefined)?.syscall === 'connect';
}

export const unavailable = (err: NotSent) =>
  new DomainError('unavailable', 'Cassandra is unavailable', { retry_after_s: 1 }, { cause: err });

/**
 * The store did not answer a statement (timeout, no host, a socket gone): the mapped error the
 * Cql wrapper throws, `unavailable` or `write_outcome_unknown`, except a statement the wrapper
 * refused itself (NotSent: its request's deadline had answered it).
 */
export function storeDidNotAnswer(err: unknown): boolean {
  if (!(err instanceof DomainError)) return false;
  if (err.code !== 'unavailable' && err.code !== 'write_outcome_unknown') return false;
  return !((err as { cause?: unknown }).cause instanceof NotSent);
}
