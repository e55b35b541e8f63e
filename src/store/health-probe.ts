/**
 * The readiness probe's one Cassandra statement: a trivial local read with its own short driver
 * timeout, so a hung node makes the probe answer "down" instead of hanging it.
 */
import type { Cql } from './cassandra.js';

export async function cassandraAnswers(cql: Cql, timeoutMs: number): Promise<boolean> {
  await cql.execute('SELECT release_version FROM system.local', [], {
    prepare: true,
    readTimeout: timeoutMs,
    isIdempotent: true,
  });
  return true;
}
