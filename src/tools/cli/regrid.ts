/**
 * `npm run regrid -- <command>`: operator commands (src/cli/regrid-commands.ts). Connects to the
 * configured Cassandra (provisioning the local node when none is configured) and migrates first.
 * These commands never issue post IDs, so no worker lease is taken. Redis is used like the server
 * uses it (a takedown refreshes the cached orders of the grids it bumps); without it, caches
 * catch up when their summary entries expire.
 */
import { openCassandra, settleSecrets } from '../../bootstrap.js';
import { createRedisGuard } from '../../cache/redis.js';
import { loadConfig } from '../../config.js';
import { GridService } from '../../service/grid-service.js';
import { runRegrid, USAGE } from './regrid-commands.js';

const argv = process.argv.slice(2);
if (argv.length === 0) {
  console.error(USAGE);
  process.exit(64);
}
const config = loadConfig();
const session = await openCassandra(config, () => undefined);
const redis = createRedisGuard(config, { log: () => undefined });
await redis.waitReady(2000);
let code = 1;
try {
  const grid = new GridService({
    cql: session.cql,
    config,
    ids: {
      next() {
        throw new Error('regrid CLI commands do not create posts');
      },
    },
    cursorSecret: settleSecrets(config).cursorSecret,
    redis,
  });
  code = await runRegrid(argv, grid, {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  });
} catch (err) {
  console.error('regrid failed:', err instanceof Error ? err.message : err);
  code = 1;
} finally {
  await Promise.allSettled([session.client.shutdown(), redis.close()]);
}
process.exit(code);
