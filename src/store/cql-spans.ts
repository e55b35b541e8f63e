/**
 * One span per CQL statement or batch, made at the Cql wrapper's single execute point
 * (cassandra.ts `run`) when tracing is on (src/obs/tracing.ts). The maintained
 * `@opentelemetry/instrumentation-cassandra-driver` patches the driver through `require` hooks,
 * which never see this ESM service load the driver (tried with 4.10: no span at all without an
 * import loader hook), so regrid spans its statements itself. Parent: the statement scope's
 * trace context (the request, or the write line's compare-and-set attempt for its batch).
 * The statement text is recorded (bound values never: they are post and profile data).
 */
import { SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import type { types } from 'cassandra-driver';
import { startSpan } from '../obs/tracing.js';

/** The text a batch is recorded under (its statements are the planner's, one per row). */
export const BATCH = 'BATCH';

export function cqlSpan(cql: string, parent: Context | undefined): Span | undefined {
  const operation = cql === BATCH ? BATCH : (/^\s*(\w+)/.exec(cql)?.[1]?.toUpperCase() ?? 'CQL');
  const started = startSpan(`cassandra ${operation}`, parent, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'cassandra',
      'db.operation.name': operation,
      ...(cql === BATCH ? {} : { 'db.query.text': cql }),
    },
  });
  return started?.span;
}

export function endCqlSpan(span: Span, rs: types.ResultSet | undefined, err?: unknown): void {
  if (rs && typeof rs.wasApplied === 'function' && rs.rows?.[0]?.['[applied]'] !== undefined) {
    span.setAttribute('db.cassandra.applied', rs.wasApplied());
  }
  if (err !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
  }
  span.end();
}
