/**
 * The Cassandra client factory and the narrow `Cql` port the stores talk to.
 *
 * One `Client` per process (the driver pools connections and caches prepared statements).
 * `useBigIntAsLong` maps CQL `bigint` to JS `bigint`, so 64-bit IDs never lose precision.
 * `useUndefinedAsUnset` (the default, kept explicit) is what lets the move path leave a column
 * untouched by binding `undefined`: a `null` bind would write a tombstone.
 *
 * Stores depend on `Cql`, not on `Client`, so a test can wrap the client (query tracing, see
 * trace.ts) and the real read path runs unchanged underneath.
 */
import { Client, auth, errors, policies, types } from 'cassandra-driver';
import type { QueryOptions } from 'cassandra-driver';
import type { Config } from '../config.js';
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
    return new DomainError('unavailable', 'Cassandra is unavailable', {
      cause: (err as Error).message,
    });
  }
  return err;
}

/** Wraps a Client so that availability failures become DomainError('unavailable'). */
export function cqlOf(client: Pick<Cql, 'execute' | 'batch'>): Cql {
  return {
    execute: (query, params, options) =>
      client.execute(query, params, options).catch((e: unknown) => {
        throw mapUnavailable(e);
      }),
    batch: (queries, options) =>
      client.batch(queries, options).catch((e: unknown) => {
        throw mapUnavailable(e);
      }),
  };
}
