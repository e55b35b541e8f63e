/**
 * What every integration harness needs first: a Config for the migrated `regrid_test` keyspace
 * (the global setup publishes the connection facts in process.env), a connected Cassandra client,
 * and an ID generator on a worker number of the harness's own.
 */
import type { Client } from 'cassandra-driver';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { IdGenerator } from '../../../src/domain/ids.js';
import { createCassandraClient } from '../../../src/store/cassandra.js';

// REGRID_TEST_KEYSPACE lets two checkouts run their suites on one node without sharing data.
export const TEST_KEYSPACE = process.env.REGRID_TEST_KEYSPACE ?? 'regrid_test';

/** The global setup's connection facts, test mode, the test keyspace, then `env` on top. */
export const testConfig = (env: Record<string, string> = {}): Config =>
  loadConfig(suiteEnvFor(env), {
    NODE_ENV: 'test',
    CASSANDRA_KEYSPACE: TEST_KEYSPACE,
    ...env,
  });

/**
 * process.env, less the suite's REDIS_TLS_* when `env` names a Redis that is not `rediss`
 * (a test's own plain redis-server, or `none`) or TLS settings of its own (a test's own TLS
 * server, where a setting it leaves out must stay unset): under the TLS-only suite
 * (tools/test-over-tls.ts) they belong to the suite's Redis, and config.ts refuses TLS files
 * that would go unused.
 */
export function suiteEnvFor(env: Record<string, string>): Record<string, string | undefined> {
  const url = env.REDIS_URL;
  const ownTls = Object.keys(env).some((k) => k.startsWith('REDIS_TLS_'));
  if (!ownTls && (url === undefined || /^rediss[:+]/i.test(url))) return process.env;
  const out = { ...process.env };
  for (const k of Object.keys(out)) if (k.startsWith('REDIS_TLS_')) delete out[k];
  return out;
}

/** A connected client on the test keyspace; the caller shuts it down. */
export async function connectTestClient(config: Config): Promise<Client> {
  const client = createCassandraClient(config, { keyspace: TEST_KEYSPACE });
  await client.connect();
  return client;
}

/**
 * IDs from a random worker in [first, first + span). Each harness takes its own range (core
 * 7000–7499, browser 7600–7619, cache 8000–8149, features 8150–8189, HTTP fuzz 8190), so IDs minted by two
 * harnesses in one run never collide.
 */
export const idsFromWorkers = (first: number, span: number): IdGenerator =>
  new IdGenerator(first + Math.floor(Math.random() * span));
