/**
 * `npm run migrate` — create the keyspace and apply `cql/*.cql` (provisioning the local node
 * first when no contact points are configured). Safe to run repeatedly.
 */
import { openCassandra } from '../../bootstrap.js';
import { loadConfig } from '../../config.js';

const config = loadConfig();
try {
  const session = await openCassandra(config);
  console.log(`keyspace ${config.CASSANDRA_KEYSPACE} is up to date`);
  await session.client.shutdown();
} catch (err) {
  console.error('migration failed:', err instanceof Error ? err.message : err);
  process.exit(1);
}
