/**
 * "Does CQL answer here?" — the readiness test for a Cassandra node. A TCP check alone is not
 * enough (the native port opens late, and another program could hold it), so a short-lived
 * driver session runs `SELECT release_version FROM system.local`.
 */
import type { ConnectionOptions } from 'node:tls';
import cassandra from 'cassandra-driver';
import { sleep, tcpOpen } from './process-utils.js';

export interface CqlEndpoint {
  readonly host: string;
  readonly port: number;
  readonly localDataCenter: string;
  /** A TLS-only node (client_encryption_options): the driver's `sslOptions`. */
  readonly sslOptions?: ConnectionOptions;
}

/** The node's release_version when CQL answers, else undefined. Never throws. */
export async function probeCql(ep: CqlEndpoint, timeoutMs = 4000): Promise<string | undefined> {
  if (!(await tcpOpen(ep.host, ep.port, Math.min(timeoutMs, 1000)))) return undefined;
  const client = new cassandra.Client({
    contactPoints: [`${ep.host}:${ep.port}`],
    localDataCenter: ep.localDataCenter,
    socketOptions: { connectTimeout: timeoutMs, readTimeout: timeoutMs },
    ...(ep.sslOptions ? { sslOptions: ep.sslOptions } : {}),
    // One attempt: the caller decides how often to poll.
    policies: {
      reconnection: new cassandra.policies.reconnection.ConstantReconnectionPolicy(60_000),
    },
  });
  try {
    await client.connect();
    const rs = await client.execute('SELECT release_version FROM system.local');
    return String(rs.first()?.['release_version'] ?? 'unknown');
  } catch {
    return undefined;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

export interface WaitOptions {
  readonly deadlineMs: number;
  readonly intervalMs?: number;
  /** Called between polls; throw from it to abort early (e.g. the JVM exited). */
  readonly check?: () => void;
  readonly onTick?: (elapsedMs: number) => void;
}

/** Polls until CQL answers or the deadline passes; returns release_version or undefined. */
export async function waitForCql(ep: CqlEndpoint, opts: WaitOptions): Promise<string | undefined> {
  const started = Date.now();
  let lastTick = started;
  while (Date.now() - started < opts.deadlineMs) {
    opts.check?.();
    const version = await probeCql(ep);
    if (version) return version;
    if (opts.onTick && Date.now() - lastTick >= 5000) {
      lastTick = Date.now();
      opts.onTick(lastTick - started);
    }
    await sleep(opts.intervalMs ?? 500);
  }
  return undefined;
}
