/**
 * Vitest global setup for the integration project: provision (or reuse) a real Cassandra and a
 * real Redis once per run, migrate keyspace `regrid_test`, and hand the connection facts to the
 * tests both as process.env (so `loadConfig()` in a test just works) and via `inject(...)`.
 *
 * Lifetimes: containers started here are stopped in teardown. The Maven-provisioned node and a
 * locally started redis-server are left running on purpose (the next run, `npm start` and other
 * developers reuse them; `npm run cassandra:down` stops the node). A node this run did not start
 * is never stopped.
 */
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config/config.js';
import { provisionTestStores } from './support/test-stores.js';

export const TEST_KEYSPACE = process.env.REGRID_TEST_KEYSPACE ?? 'regrid_test';

export interface IntegrationContext {
  readonly contactPoints: string[];
  readonly port: number;
  readonly localDataCenter: string;
  readonly keyspace: string;
  readonly redisUrl: string;
  /** The local Maven-provisioned node: nodetool and sstablemetadata (src/infra/nodetool.ts) work. */
  readonly embeddedNode: boolean;
}

declare module 'vitest' {
  export interface ProvidedContext {
    integration: IntegrationContext;
  }
}

const log = (line: string) => console.log(`[integration setup] ${line}`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now();
  // The Sentinel failover test runs Debian's redis-sentinel: `npm test` on a fresh machine gets it
  // from the project's own script (as root it installs the package; otherwise it says why).
  execFileSync('bash', ['scripts/ensure-sentinel.sh'], { stdio: 'inherit' });
  const config = loadConfig();
  const stores = await provisionTestStores(config, log);
  log(`cassandra: ${stores.cassandra.host}:${stores.cassandra.port} (${stores.cassandra.how})`);
  log(`redis: ${stores.redis.url} (${stores.redis.how})`);

  const env = {
    CASSANDRA_CONTACT_POINTS: stores.cassandra.host,
    CASSANDRA_PORT: String(stores.cassandra.port),
    CASSANDRA_LOCAL_DC: stores.cassandra.localDataCenter,
    CASSANDRA_KEYSPACE: TEST_KEYSPACE,
    REDIS_URL: stores.redis.url,
  };
  Object.assign(process.env, env);
  const testConfig = loadConfig({ ...process.env, ...env });

  // The STORE helper owns the migration runner; import it lazily so a missing module says so.
  let migrations: typeof import('../../src/store/migrations.js');
  let clients: typeof import('../../src/store/cassandra.js');
  try {
    migrations = await import('../../src/store/migrations.js');
    clients = await import('../../src/store/cassandra.js');
  } catch (err) {
    await stores.stop();
    throw new Error(
      `integration setup needs src/store/migrations.ts (applyMigrations) and src/store/cassandra.ts: ${(err as Error).message}`,
    );
  }
  const client = clients.createCassandraClient(testConfig);
  try {
    await client.connect();
    const report = await migrations.applyMigrations(client, testConfig, TEST_KEYSPACE);
    log(
      `keyspace ${TEST_KEYSPACE}: applied [${report.applied.join(', ')}], ` +
        `already there [${report.skipped.join(', ')}]`,
    );
  } catch (err) {
    await client.shutdown().catch(() => undefined);
    await stores.stop();
    throw err;
  }
  await client.shutdown();

  project.provide('integration', {
    contactPoints: [stores.cassandra.host],
    port: stores.cassandra.port,
    localDataCenter: stores.cassandra.localDataCenter,
    keyspace: TEST_KEYSPACE,
    redisUrl: stores.redis.url,
    embeddedNode: stores.cassandra.embedded,
  });
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);

  return async () => {
    await stores.stop();
  };
}
