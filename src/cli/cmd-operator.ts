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
import { domainExit } from './exit-codes.js';
import { prepareOperator, type Io, type OperatorCommand } from './regrid-commands.js';
import { isDomainError } from '../domain/errors.js';

export async function runConnected(
  command: OperatorCommand,
  args: Parsed,
  io: Io,
  find: FindCassandra,
): Promise<number> {
  let execute: ReturnType<typeof prepareOperator>;
  try {
    execute = prepareOperator(command, args); // bad arguments: exit 2 before connecting
  } catch (e) {
    if (!isDomainError(e)) throw e;
    io.err(`${e.code}: ${e.message}`);
    return domainExit(e.code);
  }
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
