/**
 * Per-request statement accounting and the in-flight budget of the `Cql` wrapper (cassandra.ts):
 * what one caller has sent (so a 503 can say "not applied" or "outcome unknown" truthfully) and
 * a bounded queue in front of the driver's per-connection request limit.
 */
import type { Context } from '@opentelemetry/api';
import { AsyncSlot } from './async-slot.js';
import type { Config } from '../config/config.js';
import { cqlInFlight, cqlQueued } from '../obs/metrics-platform.js';
import { NotSent, REFUSED_AFTER_DEADLINE } from './cql-errors.js';

/**
 * What one caller (an HTTP request, see src/http/deadline.ts) has sent through the wrapper.
 * Once its deadline passes the caller either seals it (no write may have landed, so the answer
 * "not applied" must stay true: every later statement of that request is refused) or reports
 * the outcome as unknown.
 */
export class StatementScope {
  /** Writes handed to the driver that were not since shown to be not applied. */
  private maybeWritten = 0;
  private isSealed = false;
  /** Made on first use: most requests never wait for the budget (one scope per request). */
  private onSealed: Set<() => void> | undefined;
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
    for (const f of this.onSealed ?? []) f();
    this.onSealed?.clear();
  }
  /** Runs `f` on seal; returns the unsubscribe. */
  onSeal(f: () => void): () => boolean {
    const subscribed = (this.onSealed ??= new Set());
    subscribed.add(f);
    return () => subscribed.delete(f);
  }
  // Methods, not arrow fields: a scope is made per request, and fields would be two closures each.
  writeSent(): void {
    this.maybeWritten++;
  }
  writeNotApplied(): void {
    this.maybeWritten--;
  }
}

/** The scope of the request being served, if any (set with `statementScope.run`). */
export const statementScope = new AsyncSlot<StatementScope>('statement-scope');

export interface CqlLimits {
  /** Statements handed to the driver at once; more wait in line (FIFO). */
  readonly maxInFlight: number;
  /** Statements allowed to wait; past that a statement fails at once (503). */
  readonly maxQueued: number;
}

export const cqlLimitsOf = (config: Config): CqlLimits => ({
  maxInFlight: config.CASSANDRA_MAX_IN_FLIGHT,
  maxQueued: config.CASSANDRA_MAX_QUEUED,
});

/** A counting semaphore whose waiters leave the line when their request is sealed. */
export class Budget {
  private inFlight = 0;
  private readonly line = new Set<() => void>();
  constructor(private readonly limits: CqlLimits) {}

  /** Takes a slot: at once (undefined) when one is free, else a promise of one. */
  acquire(scope: StatementScope | undefined): Promise<void> | undefined {
    if (this.inFlight < this.limits.maxInFlight && this.line.size === 0) {
      this.inFlight++;
      cqlInFlight.inc();
      return undefined;
    }
    if (this.line.size >= this.limits.maxQueued) {
      const n = `${this.inFlight} in flight, ${this.line.size} queued`;
      return Promise.reject(new NotSent(`Cassandra request queue is full (${n})`));
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        off?.();
        this.inFlight++;
        cqlQueued.dec();
        cqlInFlight.inc();
        resolve();
      };
      const off = scope?.onSeal(() => {
        if (this.line.delete(grant)) cqlQueued.dec();
        reject(new NotSent(REFUSED_AFTER_DEADLINE));
      });
      this.line.add(grant);
      cqlQueued.inc();
    });
  }

  release(): void {
    this.inFlight--;
    cqlInFlight.dec();
    const next = this.line.values().next();
    if (!next.done) {
      this.line.delete(next.value);
      next.value();
    }
  }
}
