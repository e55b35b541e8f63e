/**
 * The platform metric families: Cassandra statements (store/), HTTP requests (http/observe.ts),
 * the periodic audit and build info. The grid-level families are in metrics.ts.
 */
import type { Client } from 'cassandra-driver';
import { Counter, Gauge, Histogram } from 'prom-client';
import { releaseVersion, version } from './build-info.js';
import { registry } from './registry.js';

const registers = [registry];
/** Seconds buckets from 1 ms to 10 s. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// --- Cassandra (store/) -----------------------------------------------------------------------

export const cqlDuration = new Histogram({
  name: 'regrid_cql_duration_seconds',
  help: 'Cassandra statement latency by kind (read, write, cas, batch), queueing included',
  labelNames: ['kind'] as const,
  buckets: SECONDS,
  registers,
});

export const cqlErrors = new Counter({
  name: 'regrid_cql_errors_total',
  help: 'Cassandra statements that failed, by kind and error (unavailable, timeout, cas_timeout, refused, other)',
  labelNames: ['kind', 'error'] as const,
  registers,
});

export const cqlInFlight = new Gauge({
  name: 'regrid_cql_in_flight',
  help: 'Statements handed to the driver and not yet answered',
  registers,
});

// --- HTTP (http/observe.ts) -------------------------------------------------------------------

export const httpRequests = new Counter({
  name: 'regrid_http_requests_total',
  help: 'HTTP requests by method, route pattern and status class',
  labelNames: ['method', 'route', 'status_class'] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: 'regrid_http_request_duration_seconds',
  help: 'HTTP request duration by method and route pattern',
  labelNames: ['method', 'route'] as const,
  buckets: SECONDS,
  registers,
});

// --- audit and build --------------------------------------------------------------------------

/** What the driver itself reports, read at scrape time (`Client.getState()`). */
export interface DriverState {
  getState(): {
    getConnectedHosts(): Array<unknown>;
    getOpenConnections(host: unknown): number;
    getInFlightQueries(host: unknown): number;
  };
}

/**
 * Exports the driver's open connections and in-flight requests (summed over hosts), read from
 * `client` at scrape time. The composition root (src/server.ts) calls it with its client; a later
 * call (a second server or test in this process) replaces the gauges, so no client is kept here.
 */
export function watchDriver(client: DriverState): void {
  const gauge = (name: string, help: string, pick: 'getOpenConnections' | 'getInFlightQueries') => {
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const state = client.getState();
        this.set(state.getConnectedHosts().reduce<number>((n, h) => n + state[pick](h), 0));
      },
    });
  };
  gauge(
    'regrid_cassandra_open_connections',
    'Connections the driver holds open, over every connected host',
    'getOpenConnections',
  );
  gauge(
    'regrid_cassandra_driver_in_flight',
    'Requests the driver has on the wire, over every connected host',
    'getInFlightQueries',
  );
}

export const auditFindings = new Gauge({
  name: 'regrid_audit_findings',
  help: 'Findings of the last completed audit round, by kind (0 = clean)',
  labelNames: ['kind'] as const,
  registers,
});

const buildInfo = new Gauge({
  name: 'regrid_build_info',
  help: 'Always 1; the labels say what runs',
  labelNames: ['version', 'cassandra_version'] as const,
  registers,
});

/**
 * Sets `regrid_build_info` to this package's version and the release of the Cassandra `client`
 * is connected to (one series: a restart with new labels replaces the old one).
 */
export async function recordBuildInfo(client: Pick<Client, 'execute'>): Promise<void> {
  const cassandraVersion = await releaseVersion(client);
  buildInfo.reset();
  buildInfo.set({ version, cassandra_version: cassandraVersion }, 1);
}
