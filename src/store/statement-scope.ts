/**
 * Per-request statement accounting of the `Cql` wrapper (cassandra.ts): what one caller has sent,
 * so a 503 can say "not applied" or "outcome unknown" truthfully.
 */
import type { Context } from '@opentelemetry/api';

/**
 * What one caller (an HTTP request, see src/http/deadline.ts) has sent through the wrapper. It is
 * passed explicitly: each statement names it in its options (`CqlOptions.scope`, cassandra.ts),
 * and a statement that names none (work outside any request) is nobody's.
 * Once its deadline passes the caller either seals it (no write may have landed, so the answer
 * "not applied" must stay true: every later statement of that request is refused) or reports
 * the outcome as unknown.
 */
export class StatementScope {
  /** Writes handed to the driver that were not since shown to be not applied. */
  private maybeWritten = 0;
  private isSealed = false;
  /** The parent of its statements' spans, set only when tracing is on (src/obs/tracing.ts). */
  declare trace?: Context;

  get mayHaveWritten(): boolean {
    return this.maybeWritten > 0;
  }
  get sealed(): boolean {
    return this.isSealed;
  }
  seal(): void {
    this.isSealed = true;
  }
  // Methods, not arrow fields: a scope is made per request, and fields would be two closures each.
  writeSent(): void {
    this.maybeWritten++;
  }
  writeNotApplied(): void {
    this.maybeWritten--;
  }
}
