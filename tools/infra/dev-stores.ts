/**
 * The development half of start-up: find or start the local stores before the product connects
 * to them. `npm start` (tools/dev-start.ts), the development CLI (tools/cli.ts), the benches and
 * the tests call these; `src/` never does (a production process provisions nothing).
 * - Cassandra: the configured contact points; else a local ring that runs under REGRID_HOME
 *   (ring-target.ts); else the single local node, reused or provisioned (embedded-cassandra.ts).
 * - Redis: a local redis-server started when nothing answers at a loopback REDIS_URL.
 * NODE_ENV=production provisions nothing here either: the configuration is taken as it is.
 */
import {
  configuredTarget,
  openCassandra,
  type CassandraSession,
  type CassandraTarget,
  type FindCassandra,
  type SchemaStep,
} from '../../src/bootstrap.js';
import { NO_REDIS, type Config } from '../../src/config/config.js';
import { ensureCassandra } from './embedded-cassandra.js';
import { ensureRedis } from './redis-local.js';
import { withLocalRing } from './ring-target.js';

type Log = (line: string) => void;

/** The configured contact points, else the local node (reused or started; lines tagged). */
export async function localCassandra(config: Config, log: Log): Promise<CassandraTarget> {
  if (config.NODE_ENV === 'production' || config.CASSANDRA_CONTACT_POINTS.length > 0) {
    return configuredTarget(config);
  }
  return ensureCassandra(config, { log: (l) => log(`[cassandra] ${l}`) });
}

/** The development CLI's `FindCassandra`: a running local ring first, then `localCassandra`. */
export const findLocalCassandra: FindCassandra = async (config, notes, progress = () => {}) => {
  const located = withLocalRing(config, notes);
  return { config: located, target: await localCassandra(located, progress) };
};

/** `openCassandra` on the configured or local node (the benches' and tests' one call). */
export async function openLocalCassandra(
  config: Config,
  log: Log,
  schema: SchemaStep = 'apply',
): Promise<CassandraSession> {
  return openCassandra(config, log, schema, await localCassandra(config, log));
}

/** Starts a local redis-server when nothing answers at REDIS_URL (development only). */
export async function localRedis(config: Config, log: Log): Promise<void> {
  if (config.NODE_ENV === 'production' || config.REDIS_URL === NO_REDIS) return;
  log(`[redis] ${(await ensureRedis(config, (l) => log(`[redis] ${l}`))).detail}`);
}
