/**
 * Statement metrics of the Cql wrapper (cassandra.ts): latency and errors per statement kind.
 * Kinds are what an operator tells apart when Cassandra is slow: plain reads, plain writes,
 * conditional statements (Paxos, four round trips) and unconditional batches.
 */
import { errors } from 'cassandra-driver';
import { DomainError } from '../domain/errors.js';
import { cqlDuration, cqlErrors } from '../obs/metrics-platform.js';
import { isCasTimeout, NotSent } from './cql-errors.js';

export type StatementKind = 'read' | 'write' | 'cas' | 'batch';

const WRITE = /^\s*(INSERT|UPDATE|DELETE|BEGIN|TRUNCATE)\b/i;
/** A lightweight transaction: `IF NOT EXISTS`, `IF EXISTS` or `IF <condition>` after the body. */
const CONDITIONAL = /\sIF\s/i;

export function kindOfStatement(query: string): StatementKind {
  if (!WRITE.test(query)) return 'read';
  return CONDITIONAL.test(query) ? 'cas' : 'write';
}

export const kindOfBatch = (queries: ReadonlyArray<{ query: string }>): StatementKind =>
  queries.some((q) => CONDITIONAL.test(q.query)) ? 'cas' : 'batch';

/** A closed set: the driver's messages carry hosts and keys and must not become labels. */
function errorLabel(thrown: unknown): string {
  // The wrapper maps driver failures to DomainError('unavailable'); classify what it wraps.
  const err = thrown instanceof DomainError && thrown.cause !== undefined ? thrown.cause : thrown;
  if (isCasTimeout(err)) return 'cas_timeout';
  if (err instanceof NotSent || err instanceof errors.BusyConnectionError) return 'refused';
  if (err instanceof errors.NoHostAvailableError) return 'unavailable';
  if (err instanceof errors.OperationTimedOutError) return 'timeout';
  if (err instanceof errors.ResponseError) return 'response';
  return 'other';
}

/**
 * Starts timing one statement of `kind` (its wait for the budget included): call the result
 * once when it ends, with what it threw if it failed.
 */
export function timeStatement(kind: StatementKind): (failed?: unknown) => void {
  const t0 = performance.now();
  return (failed) => {
    cqlDuration.observe({ kind }, (performance.now() - t0) / 1000);
    if (failed !== undefined) cqlErrors.inc({ kind, error: errorLabel(failed) });
  };
}
