/**
 * `regrid takedown | audit | flags`: connects like the server does (where `find` says, in a
 * checkout a local ring under REGRID_HOME when one runs; migrations first), then runs
 * regrid-commands.ts. These commands
 * never issue post IDs, so no worker lease is taken. Redis is used like the server uses it (a
 * takedown refreshes the cached orders of the grids it bumps); without it, caches catch up when
 * their summary entries expire.
 */
import { commandService, openCassandra, type FindCassandra } from '../bootstrap.js';
import { createRedisGuard } from '../cache/redis.js';
import { loadConfig } from '../config/config.js';
import type { Parsed } from './command-specs.js';
import { prepareOperator, type Io, type OperatorCommand } from './regrid-commands.js';

export async function runConnected(
  command: OperatorCommand,
  args: Parsed,
  io: Io,
  find: FindCassandra,
): Promise<number> {
  // Bad arguments throw here, before anything connects (cli-main.ts turns them into exit 2).
  const execute = prepareOperator(command, args);
  const { config, target } = await find(loadConfig(), (l) => io.err(l));
  const session = await openCassandra(config, () => undefined, 'apply', target);
  const redis = createRedisGuard(config, { log: () => undefined });
  try {
    await redis.waitReady(2000);
    const grid = commandService(session.cql, config, redis);
    return await execute(grid, io);
  } finally {
    await Promise.allSettled([session.client.shutdown(), redis.close()]);
  }
}
