/**
 * The Cassandra client factory and the narrow `Cql` port the stores talk to.
 *
 * One `Client` per process (the driver pools connections and caches prepared statements).
 * `useBigIntAsLong` maps CQL `bigint` to JS `bigint`, so 64-bit IDs never lose precision.
 * `useUndefinedAsUnset` (the default, kept explicit) is what lets the move path leave a column
 * untouched by binding `undefined`: a `null` bind would write a tombstone.
 *
 * Stores depend on `Cql`, not on `Client`, so a test can wrap the client (query tracing, see
 * tools/loadtest/cql-trace.ts) and the real read path runs unchanged underneath. The wrapper built by `cqlOf` also
 * tells, per request, whether a write may have reached Cassandra (`StatementScope`), which is
 * what lets a 503 say "not applied" or "outcome unknown" truthfully.
 */
import type { ConnectionOptions } from 'node:tls';
import { Client, auth, policies, types } from 'cassandra-driver';
import type { QueryOptions } from 'cassandra-driver';
import type { Config } from '../config/config.js';
import type { StatementScope } from './statement-scope.js';
import {
  isCasTimeout,
  mapUnavailable,
  neverSent,
  NotSent,
  REFUSED_AFTER_DEADLINE,
  unavailable,
} from './cql-errors.js';
import { DomainError } from '../domain/errors.js';
import { tlsFilesOf, tlsOptionsOf } from '../tls-options.js';
import { kindOfBatch, kindOfStatement, timeStatement, type StatementKind } from './cql-metrics.js';
import { BATCH, cqlSpan, endCqlSpan } from './cql-spans.js';
import { cqlInFlight } from '../obs/metrics-platform.js';

/**
 * The driver's options, and the statement scope of the caller the statement is sent for (its
 * request's deadline: statement-scope.ts); absent = nobody's (work outside any request).
 */
export interface CqlOptions extends QueryOptions {
  readonly scope?: StatementScope | undefined;
}

/** The subset of `Client` the stores use. */
export interface Cql {
  execute(query: string, params?: unknown[], options?: CqlOptions): Promise<types.ResultSet>;
  batch(
    queries: Array<{ query: string; params?: unknown[] }>,
    options?: CqlOptions,
  ): Promise<types.ResultSet>;
}

export interface ClientOverrides {
  /** Connect straight into this keyspace (it must exist). */
  readonly keyspace?: string;
  /** Contact points as `host` or `host:port`; defaults to config, else the local node. */
  readonly contactPoints?: readonly string[];
  readonly localDataCenter?: string;
  readonly port?: number;
  /** Which nodes coordinate (default: the driver's token-aware DC-local round robin). */
  readonly loadBalancing?: policies.loadBalancing.LoadBalancingPolicy;
  /** TLS and credentials of a host's own client (embed.ts), instead of CASSANDRA_TLS_* / _USERNAME. */
  readonly sslOptions?: ConnectionOptions;
  readonly authProvider?: auth.AuthProvider;
}

export function createCassandraClient(config: Config, overrides: ClientOverrides = {}): Client {
  const contactPoints = overrides.contactPoints?.length
    ? [...overrides.contactPoints]
    : config.CASSANDRA_CONTACT_POINTS.length
      ? config.CASSANDRA_CONTACT_POINTS
      : ['127.0.0.1'];
  const client = new Client({
    contactPoints,
    localDataCenter: overrides.localDataCenter ?? config.CASSANDRA_LOCAL_DC,
    ...(overrides.keyspace ? { keyspace: overrides.keyspace } : {}),
    ...(overrides.authProvider
      ? { authProvider: overrides.authProvider }
      : config.CASSANDRA_USERNAME
        ? {
            authProvider: new auth.PlainTextAuthProvider(
              config.CASSANDRA_USERNAME,
              config.CASSANDRA_PASSWORD ?? '',
            ),
          }
        : {}),
    ...(overrides.sslOptions
      ? { sslOptions: overrides.sslOptions }
      : config.CASSANDRA_TLS
        ? { sslOptions: tlsOptionsOf(tlsFilesOf(config, 'CASSANDRA'), 'CASSANDRA_TLS') }
        : {}),
    protocolOptions: { port: overrides.port ?? config.CASSANDRA_PORT },
    socketOptions: { readTimeout: config.CASSANDRA_REQUEST_TIMEOUT_MS, connectTimeout: 5_000 },
    // The driver's default schedule backs off to 10 minutes, so a restarted node stayed unused
    // for seconds after it answered again; capped this low, it is back within RECONNECT_MAX_MS.
    policies: {
      ...(overrides.loadBalancing ? { loadBalancing: overrides.loadBalancing } : {}),
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
  guardControlConnection(client);
  return client;
}

interface ControlConnectionInternals {
  _isShuttingDown?: boolean;
  _refresh?: () => Promise<void>;
  _setHealthListeners?: (host: unknown, connection: unknown) => void;
}

/**
 * cassandra-driver 4.10: when the control connection's socket closes while it refreshes the
 * topology (a node killed and back within a moment), `_refresh` reaches `_setHealthListeners`
 * with no host or no connection and throws from a timer: an unhandled rejection, which ends a Node process
 * (the unsent-503 test's proxy kills showed both). Here a missing one refreshes again after
 * a moment instead, which is what the listeners it could not set would have done.
 */
function guardControlConnection(client: Client): void {
  const cc = (client as unknown as { controlConnection?: ControlConnectionInternals })
    .controlConnection;
  const original = cc?._setHealthListeners;
  if (!cc || typeof original !== 'function') return;
  cc._setHealthListeners = function (host, connection) {
    if (host && connection) return original.call(this, host, connection);
    if (cc._isShuttingDown) return;
    setTimeout(() => void cc._refresh?.call(cc).catch(() => undefined), 100).unref();
  };
}

/** Consistency levels every store uses; reads and commits both at the configured level. */
export interface Consistency {
  readonly commit: types.consistencies;
  readonly serial: types.consistencies;
  /**
   * Paxos of a grid batch that sets the home region (a claim or a re-home: docs/regions.md);
   * absent = `serial` above (a store built without it).
   */
  readonly rehome?: types.consistencies;
}

export const consistencyOf = (config: Config): Consistency => ({
  commit: types.consistencies[config.CASSANDRA_CONSISTENCY],
  serial: types.consistencies[config.CASSANDRA_SERIAL_CONSISTENCY],
  rehome: types.consistencies[config.REGRID_REHOME_SERIAL],
});

/**
 * Wraps a Client: per-request write accounting, timing and spans, and availability
 * failures as DomainError('unavailable'), or 'write_outcome_unknown' once a write of the same
 * request may have landed. A Paxos timeout stays raw: the grid writer re-reads and decides.
 */
export function cqlOf(client: Pick<Cql, 'execute' | 'batch'>): Cql {
  async function run(
    kind: StatementKind,
    cql: string,
    scope: StatementScope | undefined,
    send: () => Promise<types.ResultSet>,
  ) {
    const done = timeStatement(kind);
    const write = kind !== 'read';
    const span = scope?.trace && cqlSpan(cql, scope.trace);
    let sent = false;
    try {
      if (scope?.sealed) throw new NotSent(REFUSED_AFTER_DEADLINE);
      cqlInFlight.inc();
      try {
        if (write) scope?.writeSent();
        sent = true;
        const rs = await send();
        if (write && typeof rs?.wasApplied === 'function' && !rs.wasApplied()) {
          scope?.writeNotApplied(); // a lost compare-and-set: known not applied
        }
        done();
        if (span) endCqlSpan(span, rs);
        return rs;
      } finally {
        cqlInFlight.dec();
      }
    } catch (err) {
      done(err);
      if (span) endCqlSpan(span, undefined, err);
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
      run(kindOfStatement(query), query, options?.scope, () =>
        client.execute(query, params, driverOptions(options)),
      ),
    batch: (queries, options) =>
      run(kindOfBatch(queries), BATCH, options?.scope, () =>
        client.batch(queries, driverOptions(options)),
      ),
  };
}

/** The options without the scope, which is ours, not the driver's. */
function driverOptions(options: CqlOptions | undefined): QueryOptions | undefined {
  if (options?.scope === undefined) return options;
  const { scope: _ours, ...driver } = options;
  return driver;
}
