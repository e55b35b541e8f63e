/**
 * The per-request deadline. A request not answered within its budget (REQUEST_DEADLINE_READ_MS
 * for GET/HEAD, REQUEST_DEADLINE_WRITE_MS otherwise) gets 503 problem+json with Retry-After
 * instead of waiting out a stalled Cassandra: the driver's timeout is per statement, and one
 * request runs several of them, so it alone let a move wait 12 s and more. The clock starts once
 * the body is in (body-limit.ts runs first, under its own BODY_TIMEOUT_MS and 408): a client that
 * is slow to send is not the store being unavailable.
 *
 * What the 503 says depends on what the request had sent by then (`StatementScope`, set here as
 * the request's `scope`, handed by the routes to the service calls and by those to every statement,
 * and kept by the Cql wrapper in src/store/cassandra.ts):
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

export function deadline(limits: Deadlines, log: Log): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    const read = c.req.method === 'GET' || c.req.method === 'HEAD';
    const ms = read ? limits.readMs : limits.writeMs;
    const scope = new StatementScope();
    const trace = c.get('trace'); // the request's span, when traced (http/trace.ts)
    if (trace) scope.trace = trace;
    c.set('scope', scope);
    const work = next();
    // One promise and one timer per request, settled by whichever comes first (no race helper
    // and no promise of its own for the timer: every promise costs a hook call here).
    return new Promise<Response | void>((resolve, reject) => {
      const timer = setTimeout(() => {
        try {
          resolve(expire(c, read, ms, scope, work));
        } catch (err) {
          reject(err);
        }
      }, ms);
      work.then(
        () => (clearTimeout(timer), resolve()),
        (err: unknown) => (clearTimeout(timer), reject(err)),
      );
    });
  };

  function expire(
    c: Context<AppEnv>,
    read: boolean,
    ms: number,
    scope: StatementScope,
    work: Promise<void>,
  ): Response {
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
          read
            ? `no answer within ${ms} ms`
            : `no answer within ${ms} ms; the write was not applied`,
          { retry_after_s: 1 },
        );
    const where = `${c.req.method} ${c.req.path}`;
    log(`503 ${err.code} ${where}`, `DeadlineExceeded: ${err.message}`);
    void work.then(
      () => log(`after the deadline ${where}`, lateOutcome(c)),
      (e: unknown) => log(`after the deadline ${where}`, causeLine(e)),
    );
    return problemResponse(problemOf(err));
  }
}

/** What the abandoned handler ended with (its own answer never replaces the one sent). */
const lateOutcome = (c: Context): string => (c.error ? causeLine(c.error) : 'completed');
