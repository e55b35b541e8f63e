/**
 * The write line's spans (src/obs/tracing.ts), made only when tracing is on. Each write's parent
 * is its request's span, carried on its statement scope (QueuedWrite.scope.trace):
 *   regrid.write_line.queue_wait  per write, from `writeGrid` until its turn takes it;
 *   regrid.write_line             the turn (child of the first traced write; linked to the others);
 *     regrid.write_line.plan      per attempt: the snapshot and the planners;
 *     regrid.cas                  per attempt: the conditional batch, with `regrid.cas.applied`
 *                                 and `regrid.cas.reason` (version_changed, timeout, refused);
 *     regrid.changes.publish      the change stream's publish of an applied batch.
 * The turn's own reads run in a statement scope that carries the turn's context and nothing
 * else (`turnScope`), so their CQL spans are the turn's children.
 */
import { SpanStatusCode, type Context, type Link, type Span } from '@opentelemetry/api';
import { spanContextOf, startSpan } from '../../obs/tracing.js';
import { StatementScope } from '../../store/statement-scope.js';
import type { CasResult } from '../../store/grid-store.js';
import type { QueuedWrite } from './types.js';

/** Opens the write's queue-wait span (when tracing is on and its request is traced). */
export function traceQueued(write: QueuedWrite): void {
  const parent = write.scope?.trace;
  if (!parent) return;
  write.queueWait = startSpan('regrid.write_line.queue_wait', parent)?.span;
}

export interface TurnTrace {
  readonly context: Context;
  end(back: readonly QueuedWrite[]): void;
}

/** The turn's span; ends the queue waits of the writes it took. Undefined when none is traced. */
export function traceTurn(
  profileId: bigint,
  writes: readonly QueuedWrite[],
): TurnTrace | undefined {
  let parent: Context | undefined;
  const links: Link[] = [];
  for (const w of writes) {
    w.queueWait?.end();
    w.queueWait = undefined;
    const ctx = w.scope?.trace;
    if (!ctx) continue;
    if (!parent) parent = ctx;
    else {
      const linked = spanContextOf(ctx);
      if (linked) links.push({ context: linked });
    }
  }
  if (!parent) return undefined; // no write of the turn is traced
  const s = startSpan('regrid.write_line', parent, {
    links,
    attributes: { 'regrid.profile_id': profileId.toString(), 'regrid.writes': writes.length },
  });
  if (!s) return undefined;
  return {
    context: s.context,
    end: (back) => {
      s.span.setAttribute('regrid.writes.put_back', back.length);
      s.span.end();
    },
  };
}

/** A statement scope carrying only the turn's trace context (its own reads' parent). */
export function turnScope(trace: Context): StatementScope {
  const scope = new StatementScope();
  scope.trace = trace;
  return scope;
}

/** A span around `f` (ends with it; an error marks it). */
export async function spanned<T>(
  name: string,
  parent: Context | undefined,
  attributes: Record<string, number | string>,
  f: (ctx: Context | undefined) => Promise<T>,
  outcome?: (span: Span, result: T) => void,
): Promise<T> {
  const s = parent ? startSpan(name, parent, { attributes }) : undefined;
  if (!s) return f(undefined);
  try {
    const result = await f(s.context);
    outcome?.(s.span, result);
    return result;
  } catch (err) {
    s.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    s.span.end();
  }
}

/** The CAS attempt's outcome attributes. */
export function casOutcome(span: Span, cas: CasResult | 'refused'): void {
  if (cas !== 'refused' && cas.applied) {
    span.setAttribute('regrid.cas.applied', true);
    return;
  }
  span.setAttribute('regrid.cas.applied', false);
  span.setAttribute('regrid.cas.reason', cas === 'refused' ? 'refused' : cas.reason);
}
