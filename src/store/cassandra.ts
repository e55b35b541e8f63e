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
 * keeps the driver under its per-connection request limit: a queue instead of
 * BusyConnectionError.
 */
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

/**
 * Turns "the store is not there" into DomainError('unavailable') (HTTP 503); anything else
 * (a bug, a schema error) is rethrown untouched so it surfaces as a 500 with its real message.
 */
export function mapUnavailable(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  const code = err instanceof errors.ResponseError ? err.code : undefined;
  const c = types.responseErrorCodes;
  if (
    err instanceof errors.NoHostAvailableError ||
    err instanceof errors.OperationTimedOutError ||
    code === c.unavailableException ||
    code === c.readTimeout ||
    code === c.overloaded ||
    code === c.isBootstrapping
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

/** A counting semaphore with a bounded FIFO line. */
class Budget {
  private inFlight = 0;
  private readonly line = new Set<() => void>();
  constructor(private readonly limits: CqlLimits) {}

  acquire(): Promise<void> {
    if (this.inFlight < this.limits.maxInFlight && this.line.size === 0) {
      this.inFlight++;
      return Promise.resolve();
    }
    if (this.line.size >= this.limits.maxQueued) {
      const n = `${this.inFlight} in flight, ${this.line.size} queued`;
      return Promise.reject(new NotSent(`Cassandra request queue is full (${n})`));
    }
    return new Promise((resolve) => {
      const grant = () => {
        this.inFlight++;
        resolve();
      };
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

/**
 * Wraps a Client: a bounded in-flight budget, and availability failures as
 * DomainError('unavailable').
 */
export function cqlOf(
  client: Pick<Cql, 'execute' | 'batch'>,
  limits: CqlLimits = CQL_LIMIT_DEFAULTS,
): Cql {
  let budget = budgets.get(client);
  if (!budget) budgets.set(client, (budget = new Budget(limits)));
  const held = budget;

  async function run(send: () => Promise<types.ResultSet>) {
    try {
      await held.acquire();
      try {
        return await send();
      } finally {
        held.release();
      }
    } catch (err) {
      throw err instanceof NotSent ? unavailable(err) : mapUnavailable(err);
    }
  }

  return {
    execute: (query, params, options) => run(() => client.execute(query, params, options)),
    batch: (queries, options) => run(() => client.batch(queries, options)),
  };
}

const unavailable = (err: NotSent) =>
  new DomainError('unavailable', 'Cassandra is unavailable', { retry_after_s: 1 }, { cause: err });
