/**
 * The per-request deadline. A request not answered within its budget (REQUEST_DEADLINE_READ_MS
 * for GET/HEAD, REQUEST_DEADLINE_WRITE_MS otherwise) gets 503 problem+json with Retry-After
 * instead of waiting out a stalled Cassandra: the driver's timeout is per statement, and one
 * request runs several of them, so it alone let a move wait 12 s and more. The clock starts once
 * the body is in (body-limit.ts runs first, under its own BODY_TIMEOUT_MS and 408): a client that
 * is slow to send is not the store being unavailable.
 *
 * The deadline and its scope are made only for work that may reach Cassandra: app.ts mounts
 * `deadline` on each /v1 route but the grid read, whose page read arms `storeDeadline` on its
 * way to Cassandra (a first page answered from Redis makes neither a timer nor a scope).
 *
 * What the 503 says depends on what the request had sent by then (`StatementScope`, made here,
 * set as the request's `scope` by the middleware or handed to the work by `storeDeadline`, passed
 * by the routes to the service calls and by those to every statement, and kept by the Cql
 * wrapper in src/store/cassandra.ts):
 *   - nothing that writes: `unavailable`. The scope is sealed, so the handler, still running in
 *     the background, cannot send anything any more and "not applied" stays true;
 *   - a write that may have reached Cassandra: `write_outcome_unknown`. The handler keeps going,
 *     so it may finish the write and record its Idempotency-Key outcome, which is what lets a
 *     retry with the same key replay the answer instead of applying the write twice.
 * The handler's late outcome is logged (one line), never sent.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/config.js';
import { DomainError } from '../domain/errors.js';
import { StatementScope } from '../store/statement-scope.js';
import type { AppEnv } from './env.js';
import { causeLine, problemOf, problemResponse } from './problem.js';

export interface Deadlines {
  readonly readMs: number;
  readonly writeMs: number;
}

export const deadlinesOf = (config: Config): Deadlines => ({
  readMs: config.REQUEST_DEADLINE_READ_MS,
  writeMs: config.REQUEST_DEADLINE_WRITE_MS,
});

export type Log = (msg: string, err: unknown) => void;

/** True once the deadline has answered this request: its handler's error is no response. */
export const answeredByDeadline = (c: Context): boolean =>
  (c as Context<AppEnv>).get('answeredByDeadline') === true;

/**
 * Runs `work` (the part of a request that reaches Cassandra) under the request's deadline, with
 * the request's `StatementScope`: settled by `work`, or at the deadline by `answer` of its 503.
 * Made only when a request reaches the store: a first page answered from Redis makes neither the
 * scope nor the timer.
 */
function underDeadline<T, R>(
  c: Context<AppEnv>,
  limits: Deadlines,
  log: Log,
  work: (scope: StatementScope) => Promise<T>,
  answer: (err: DomainError) => R,
): Promise<T | R> {
  const read = c.req.method === 'GET' || c.req.method === 'HEAD';
  const ms = read ? limits.readMs : limits.writeMs;
  const scope = new StatementScope();
  const trace = c.get('trace'); // the request's span, when traced (http/trace.ts)
  if (trace) scope.trace = trace;
  const running = work(scope);
  // One promise and one timer per request, settled by whichever comes first (no race helper
  // and no promise of its own for the timer: every promise costs a hook call here).
  return new Promise<T | R>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(answer(expire(c, read, ms, scope, running, log)));
      } catch (err) {
        reject(err);
      }
    }, ms);
    running.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}

/** Every /v1 route but those whose handler reaches the store through `storeDeadline`. */
export function deadline(limits: Deadlines, log: Log): MiddlewareHandler<AppEnv> {
  return (c, next) =>
    underDeadline(
      c,
      limits,
      log,
      (scope) => (c.set('scope', scope), next()),
      (err) => problemResponse(problemOf(err)),
    );
}

/** `work` under the request's deadline, rejected with its 503 at the deadline. */
export type StoreDeadline = <T>(
  c: Context<AppEnv>,
  work: (scope: StatementScope) => Promise<T>,
) => Promise<T>;

/**
 * The deadline of a route that may answer without the store (the grid read, from Redis): its
 * handler runs under it only the work that reaches Cassandra, and the 503 is thrown to
 * problem.ts's onError like any other.
 */
export const storeDeadline =
  (limits: Deadlines, log: Log): StoreDeadline =>
  (c, work) =>
    underDeadline(c, limits, log, work, (err): never => {
      throw err;
    });

function expire(
  c: Context<AppEnv>,
  read: boolean,
  ms: number,
  scope: StatementScope,
  work: Promise<unknown>,
  log: Log,
): DomainError {
  // Decided synchronously with the seal: no statement can slip in between.
  const unknown = !read && scope.mayHaveWritten;
  if (!unknown) scope.seal();
  c.set('answeredByDeadline', true);
  const err = unknown
    ? new DomainError(
        'write_outcome_unknown',
        `no answer within ${ms} ms while a write was in flight; it may or may not have been applied`,
        { retry_after_s: 1 },
      )
    : new DomainError(
        'unavailable',
        read ? `no answer within ${ms} ms` : `no answer within ${ms} ms; the write was not applied`,
        { retry_after_s: 1 },
      );
  const where = `${c.req.method} ${c.req.path}`;
  log(`503 ${err.code} ${where}`, `DeadlineExceeded: ${err.message}`);
  void work.then(
    () => log(`after the deadline ${where}`, lateOutcome(c, err)),
    (e: unknown) => log(`after the deadline ${where}`, causeLine(e)),
  );
  return err;
}

/**
 * What the abandoned handler ended with (its own answer never replaces the one sent); the
 * deadline's own 503, thrown by `storeDeadline`, is no outcome of the handler.
 */
const lateOutcome = (c: Context, answered: DomainError): string =>
  c.error && c.error !== answered ? causeLine(c.error) : 'completed';
