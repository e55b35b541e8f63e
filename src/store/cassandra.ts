/**
 * The Cassandra client factory and the narrow `Cql` port the stores talk to.
 *
 * One `Client` per process (the driver pools connections and caches prepared statements).
 * `useBigIntAsLong` maps CQL `bigint` to JS `bigint`, so 64-bit IDs never lose precision.
 * `useUndefinedAsUnset` (the default, kept explicit) is what lets the move path leave a column
 * untouched by binding `undefined`: a `null` bind would write a tombstone.
 *
 * Stores depend on `Cql`, not on `Client`, so a test can wrap the client (query tracing, see
 * trace.ts) and the real read path runs unchanged underneath. The wrapper built by `cqlOf` also
 * keeps the driver under its per-connection request limit (a queue instead of
 * BusyConnectionError) and tells, per request, whether a write may have reached Cassandra
 * (`StatementScope`), which is what lets a 503 say "not applied" or "outcome unknown" truthfully.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, auth, errors, policies, types } from 'cassandra-driver';
import type { QueryOptions } from 'cassandra-driver';
import { CQL_LIMIT_DEFAULTS, type Config } from '../config.js';
import { DomainError } from '../domain/errors.js';

/** The subset of `Client` the stores use. */
export interface Cql {
  execute(query: string, params?: unknown[], options?: QueryOptions): Promise<types.ResultSet>;
  batch(
    queries: Array<{ query: string; params?: unknown[] }>,
    options?: QueryOptions,
  ): Promise<types.ResultSet>;
}

export interface ClientOverrides {
  /** Connect straight into this keyspace (it must exist). */
  readonly keyspace?: string;
  /** Contact points as `host` or `host:port`; defaults to config, else the local node. */
  readonly contactPoints?: readonly string[];
  readonly localDataCenter?: string;
  readonly port?: number;
}

export function createCassandraClient(config: Config, overrides: ClientOverrides = {}): Client {
  const contactPoints = overrides.contactPoints?.length
    ? [...overrides.contactPoints]
    : config.CASSANDRA_CONTACT_POINTS.length
      ? config.CASSANDRA_CONTACT_POINTS
      : ['127.0.0.1'];
  return new Client({
    contactPoints,
    localDataCenter: overrides.localDataCenter ?? config.CASSANDRA_LOCAL_DC,
    ...(overrides.keyspace ? { keyspace: overrides.keyspace } : {}),
    ...(config.CASSANDRA_USERNAME
      ? {
          authProvider: new auth.PlainTextAuthProvider(
            config.CASSANDRA_USERNAME,
            config.CASSANDRA_PASSWORD ?? '',
          ),
        }
      : {}),
    protocolOptions: { port: overrides.port ?? config.CASSANDRA_PORT },
    socketOptions: { readTimeout: config.CASSANDRA_REQUEST_TIMEOUT_MS, connectTimeout: 5_000 },
    // The driver's default schedule backs off to 10 minutes, so a restarted node stayed unused
    // for seconds after it answered again; capped this low, it is back within RECONNECT_MAX_MS.
    policies: {
      reconnection: new policies.reconnection.ExponentialReconnectionPolicy(
        config.CASSANDRA_RECONNECT_BASE_MS,
        config.CASSANDRA_RECONNECT_MAX_MS,
        false,
      ),
    },
    // Each connection carries at most 2,048 requests (protocol v4+); the default is ONE per host.
    pooling: {
      coreConnectionsPerHost: {
        [types.distance.local]: config.CASSANDRA_CONNECTIONS_PER_HOST,
        [types.distance.remote]: 1,
      },
    },
    encoding: { useBigIntAsLong: true, useUndefinedAsUnset: true },
    queryOptions: {
      prepare: true,
      consistency: types.consistencies[config.CASSANDRA_CONSISTENCY],
      serialConsistency: types.consistencies[config.CASSANDRA_SERIAL_CONSISTENCY],
    },
  });
}

/** Consistency levels every store uses; reads and commits both at the configured level. */
export interface Consistency {
  readonly commit: types.consistencies;
  readonly serial: types.consistencies;
}

export const consistencyOf = (config: Config): Consistency => ({
  commit: types.consistencies[config.CASSANDRA_CONSISTENCY],
  serial: types.consistencies[config.CASSANDRA_SERIAL_CONSISTENCY],
});

/** A CAS write whose outcome is unknown (Paxos timed out). The caller re-reads and decides. */
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
class NotSent extends Error {
  override name = 'NotSent';
}
const REFUSED_AFTER_DEADLINE = 'refused after the deadline: the request was already answered';

/** True when the statement certainly never reached a replica (so a write was not applied). */
function neverSent(err: unknown): boolean {
  if (err instanceof errors.BusyConnectionError || err instanceof NotSent) return true;
  if (err instanceof errors.ResponseError) return REFUSED_CODES.has(err.code);
  if (err instanceof errors.NoHostAvailableError) {
    // Per host: a string ("Host considered as DOWN"), or the error that host answered with.
    const tried = Object.values(err.innerErrors as Record<string, unknown>);
    return tried.every((e) => typeof e === 'string' || neverSent(e));
  }
  return false;
}

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
  private readonly onSealed = new Set<() => void>();

  get mayHaveWritten(): boolean {
    return this.maybeWritten > 0;
  }
  get sealed(): boolean {
    return this.isSealed;
  }
  seal(): void {
    this.isSealed = true;
    for (const f of this.onSealed) f();
    this.onSealed.clear();
  }
  /** Runs `f` on seal; returns the unsubscribe. */
  onSeal(f: () => void): () => boolean {
    this.onSealed.add(f);
    return () => this.onSealed.delete(f);
  }
  writeSent = (): void => void this.maybeWritten++;
  writeNotApplied = (): void => void this.maybeWritten--;
}

/** The scope of the request being served, if any (set with `statementScope.run`). */
export const statementScope = new AsyncLocalStorage<StatementScope>();

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
class Budget {
  private inFlight = 0;
  private readonly line = new Set<() => void>();
  constructor(private readonly limits: CqlLimits) {}

  acquire(scope: StatementScope | undefined): Promise<void> {
    if (this.inFlight < this.limits.maxInFlight && this.line.size === 0) {
      this.inFlight++;
      return Promise.resolve();
    }
    if (this.line.size >= this.limits.maxQueued) {
      const n = `${this.inFlight} in flight, ${this.line.size} queued`;
      return Promise.reject(new NotSent(`Cassandra request queue is full (${n})`));
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        off?.();
        this.inFlight++;
        resolve();
      };
      const off = scope?.onSeal(() => {
        this.line.delete(grant);
        reject(new NotSent(REFUSED_AFTER_DEADLINE));
      });
      this.line.add(grant);
    });
  }

  release(): void {
    this.inFlight--;
    const next = this.line.values().next();
    if (!next.done) {
      this.line.delete(next.value);
      next.value();
    }
  }
}

/**
 * One budget per driver client, shared by every wrapper of it (the limit belongs to the client's
 * connections); the limits of the first wrapper built over a client are the ones that hold.
 */
const budgets = new WeakMap<object, Budget>();

const WRITE = /^\s*(INSERT|UPDATE|DELETE|BEGIN|TRUNCATE)\b/i;

/**
 * Wraps a Client: a bounded in-flight budget, per-request write accounting, and availability
 * failures as DomainError('unavailable'), or 'write_outcome_unknown' once a write of the same
 * request may have landed. A Paxos timeout stays raw: the grid writer re-reads and decides.
 */
export function cqlOf(
  client: Pick<Cql, 'execute' | 'batch'>,
  limits: CqlLimits = CQL_LIMIT_DEFAULTS,
): Cql {
  let budget = budgets.get(client);
  if (!budget) budgets.set(client, (budget = new Budget(limits)));
  const held = budget;

  async function run(write: boolean, send: () => Promise<types.ResultSet>) {
    const scope = statementScope.getStore();
    let sent = false;
    try {
      if (scope?.sealed) throw new NotSent(REFUSED_AFTER_DEADLINE);
      await held.acquire(scope);
      try {
        if (write) scope?.writeSent();
        sent = true;
        const rs = await send();
        if (write && typeof rs?.wasApplied === 'function' && !rs.wasApplied()) {
          scope?.writeNotApplied(); // a lost compare-and-set: known not applied
        }
        return rs;
      } finally {
        held.release();
      }
    } catch (err) {
      if (write && sent && neverSent(err)) scope?.writeNotApplied();
      if (isCasTimeout(err)) throw err;
      const mapped = err instanceof NotSent ? unavailable(err) : mapUnavailable(err);
      const unknown = scope ? scope.mayHaveWritten : write && !neverSent(err);
      if (mapped instanceof DomainError && mapped.code === 'unavailable' && unknown) {
        throw new DomainError(
          'write_outcome_unknown',
          'Cassandra failed after this request sent a write; it may or may not have been applied',
          { retry_after_s: 1 },
          { cause: err },
        );
      }
      throw mapped;
    }
  }

  return {
    execute: (query, params, options) =>
      run(WRITE.test(query), () => client.execute(query, params, options)),
    batch: (queries, options) => run(true, () => client.batch(queries, options)),
  };
}

const unavailable = (err: NotSent) =>
  new DomainError('unavailable', 'Cassandra is unavailable', { retry_after_s: 1 }, { cause: err });
