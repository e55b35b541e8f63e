/**
 * What bench/overrides.ts and bench/display-copy.ts both stand on: the local Cassandra (keyspace
 * of `config`) and Redis, an ID lease, a Cql that counts the statements it sends, and a Bench
 * (read/measure.ts) that serves each `serve()` with a fresh service over a real listener.
 */
import { randomBytes } from 'node:crypto';
import { openIdGenerator } from '../../src/bootstrap.js';
import { cursorKeyIdOf } from '../../src/cache/keys.js';
import { createRedisGuard } from '../../src/cache/redis.js';
import type { Config } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import type { GridService } from '../../src/service/grid-service.js';
import type { Cql } from '../../src/store/cassandra.js';
import { openLocalCassandra } from '../../tools/infra/dev-stores.js';
import { ensureRedis } from '../../tools/infra/redis-local.js';
import { listen } from './http.js';
import type { Bench } from './measure.js';

export async function openOverrideBench(config: Config, log: (line: string) => void, what: string) {
  const session = await openLocalCassandra(config, log);
  log(`[redis] ${(await ensureRedis(config, log)).detail}`);
  const guard = createRedisGuard(config, { log });
  if (!(await guard.waitReady(5000))) throw new Error(`${what} needs Redis`);
  const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
    throw new Error(`lost worker lease ${w}: ${why}`);
  });
  let statements = 0;
  const cql: Cql = {
    execute: (q, p, o) => (statements++, session.cql.execute(q, p, o)),
    batch: (q, o) => (statements++, session.cql.batch(q, o)),
  };
  const secret = randomBytes(24).toString('base64url');
  /** A Bench whose every `serve()` serves the service `next()` makes then. */
  const benchOf = (next: () => GridService): Bench => ({
    cursorKeyId: cursorKeyIdOf(secret),
    guard,
    queries: () => statements,
    async serve() {
      const service = next();
      const app = createApp({
        service,
        jwtSecret: secret,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        readiness: async () => ({ ready: true, checks: {} }),
      });
      const served = await listen(app);
      return { service, base: served.base, close: served.close };
    },
  });
  const close = async () => {
    await lease.release();
    await guard.close();
    await session.client.shutdown();
  };
  return { cql, ids, guard, secret, benchOf, close };
}
