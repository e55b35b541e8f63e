/**
 * The development start (tools/dev-start.ts, `regrid serve` in a checkout). Finds the
 * stores the service needs and starts what is missing (tools/infra/dev-stores.ts: a local ring
 * under REGRID_HOME when one runs, else the local node, reused or provisioned; a local
 * redis-server), then starts the service through src/server.ts with the Cassandra target it
 * found. With NODE_ENV=production nothing is looked for: the configuration is used as it is.
 */
import { loadConfig } from '../src/config/config.js';
import { splitSettings } from './dev-settings.js';
import { serverLogger, startServer } from '../src/server.js';
import { localCassandra, localRedis } from './infra/dev-stores.js';
import { withLocalRing } from './infra/ring-target.js';

/** Provisions what is missing, then serves; throws why it cannot. */
export async function devStart(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  // `npm start -- --set NAME=value`: a constant for this run (tools/dev-settings.ts).
  const loaded = loadConfig(process.env, splitSettings(argv).settings);
  if (loaded.NODE_ENV === 'production') return startServer(loaded);
  const notes: string[] = [];
  const config = withLocalRing(loaded, (l) => notes.push(l));
  const logger = serverLogger(config);
  const log = (line: string) => logger.info(line);
  for (const note of notes) log(note);
  const cassandra = await localCassandra(config, log);
  await localRedis(config, log);
  return startServer(config, { cassandra, logger });
}
