/**
 * A service process for the change-stream kill test (test/faults/change-stream-kill.test.ts),
 * run as its own Node process so the test can SIGKILL it: the grid service on the private stores
 * with the change stream on (its Redis through the test's delaying proxy, FAULT_REDIS_URL, so the
 * window between a commit and its publish is wide), its sweeper running, and movers that move
 * random posts of the given grids until the process dies. Prints `ready` once writing.
 */

import { createRedisGuard } from '../../../src/cache/redis.js';
import { GridService } from '../../../src/service/grid-service.js';
import { createCassandraClient, cqlOf } from '../../../src/store/cassandra.js';
import { faultsConfig } from './private-stores.js';
import { IdGenerator } from '../../../src/domain/ids.js';

const env = process.env;
const config = faultsConfig({
  REDIS_URL: env.FAULT_REDIS_URL!,
  REDIS_TIMEOUT_MS: '2000',
  CHANGES_KEY_PREFIX: env.FAULT_PREFIX!,
  CHANGES_STREAM_SHARDS: '4',
  CHANGES_SWEEP_INTERVAL_MS: '500',
  CHANGES_SWEEP_AGE_MS: env.FAULT_SWEEP_AGE_MS ?? '1500',
});
const profiles = env.FAULT_PROFILES!.split(',').map(BigInt);
const movers = Number(env.FAULT_MOVERS ?? '6');

const client = createCassandraClient(config, {
  keyspace: config.CASSANDRA_KEYSPACE,
  contactPoints: ['127.0.0.1'],
});
await client.connect();
const redis = createRedisGuard(config, { log: () => {} });
await redis.waitReady(5000);
const ids = new IdGenerator(6500 + Math.floor(Math.random() * 400));
const service = new GridService({
  cql: cqlOf(client),
  config,
  ids,
  cursorSecret: 'faults-cursor-secret-0123456789abcdef',
  redis,
});
service.changes.startSweeper();

const posts = new Map<bigint, bigint[]>();
for (const p of profiles) {
  const page = await service.pages.page({ profileId: p, limit: 100 });
  posts.set(
    p,
    page.items.map((i) => i.postId),
  );
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
console.log('ready');

await Promise.all(
  Array.from({ length: movers }, async () => {
    for (;;) {
      const p = pick(profiles);
      const ps = posts.get(p)!;
      const post = pick(ps);
      const after = Math.random() < 0.3 ? null : pick(ps.filter((x) => x !== post));
      try {
        await service.move(p, post, after);
      } catch {
        // Contention or a store hiccup: the next move.
      }
    }
  }),
);
