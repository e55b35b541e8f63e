/**
 * `npx tsx bench/move-cpu.ts [--moves 2000] [--no-redis] [--count]`: Node CPU per move (process.cpuUsage
 * over the moving phase), the local Cassandra node's CPU per move (its JVM's utime + stime from
 * /proc, when the node is this project's own: its pidfile) and moves/s, for 16 writers on 16 grids of 48 posts, each moving only on
 * its own grid, through GridService in-process with the Redis cache (rate limit, invalidation,
 * background pre-fill) or without it. On 2 cores Node and Cassandra share the CPU, so Node's
 * milliseconds per move bound the throughput; docs/cache.md quotes the figures.
 *
 * `--count` also counts, over the moving phase, the promises created (an async_hooks PROMISE
 * init hook: each one costs an allocation, and once cost the AsyncLocalStorage hooks) and the socket writes
 * (`net.Socket#write` calls: the driver's, and Redis's when on) per move. The hook costs CPU
 * itself: read that run's CPU figures as inflated.
 */
import { createHook } from 'node:async_hooks';
import { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openIdGenerator } from '../src/bootstrap.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig } from '../src/config/config.js';
import { GridService } from '../src/service/grid-service.js';
import { nodeLayout } from '../tools/infra/cassandra-files.js';
import { liveNodePid } from '../tools/infra/embedded-cassandra.js';
import { processCpuMs } from '../tools/infra/process-cpu.js';
import { ownGridMoves } from './own-grid-moves.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: {
    moves: { type: 'string', default: '2000' },
    'no-redis': { type: 'boolean' },
    count: { type: 'boolean' },
  },
});
const MOVES = Number(args.moves);
const WRITERS = 16;
const POSTS = 48;
const config = {
  ...loadConfig(),
  CASSANDRA_KEYSPACE: 'regrid_bench',
  REDIS_TIMEOUT_MS: 1000,
  MOVE_RATE_LIMIT: 1_000_000_000,
};
const session = await openLocalCassandra(config, () => {});
const guard = createRedisGuard(config, {});
const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
  throw new Error(`lost worker lease ${w}: ${why}`);
});
try {
  const redis = !args['no-redis'] && (await guard.waitReady(5000));
  const service = new GridService({
    cql: session.cql,
    config,
    ids,
    cursorSecret: randomBytes(24).toString('base64url'),
    ...(redis ? { redis: guard } : {}),
  });
  const grids = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const profileId = ids.next();
      const posts: bigint[] = [];
      for (let i = 0; i < POSTS; i++)
        posts.push((await service.createPost(profileId, {})).value.postId);
      return { profileId, posts };
    }),
  );
  const run = ownGridMoves(grids, (p, post, after) => service.move(p, post, after), 1);
  const jvm = liveNodePid(nodeLayout(config));
  const jvmMs = () => processCpuMs(jvm);
  const counted = { promises: 0, writes: 0, on: false };
  if (args.count) {
    createHook({
      init: (_id, type) => void (counted.on && type === 'PROMISE' && counted.promises++),
    }).enable();
    const write = Socket.prototype.write;
    Socket.prototype.write = function (this: Socket, ...a: Parameters<Socket['write']>) {
      if (counted.on) counted.writes++;
      return write.apply(this, a);
    } as Socket['write'];
    counted.on = true;
  }
  const jvm0 = jvmMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(MOVES);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  counted.on = false;
  const perMove = (cpu.user + cpu.system) / 1000 / MOVES;
  const jvmPerMove = (jvmMs() - jvm0) / MOVES;
  console.log(
    `${MOVES} moves, ${WRITERS} writers on their own grids, Redis ${redis ? 'on' : 'off'}: ` +
      `${Math.round((MOVES / ms) * 1000)} moves/s, Node CPU ${perMove.toFixed(2)} ms per move` +
      (jvm === undefined ? '' : `, Cassandra JVM CPU ${jvmPerMove.toFixed(2)} ms per move`) +
      (args.count
        ? `; ${(counted.promises / MOVES).toFixed(1)} promises and ` +
          `${(counted.writes / MOVES).toFixed(2)} socket writes per move (counting on)`
        : ''),
  );
} finally {
  await lease.release();
  await guard.close();
  await session.client.shutdown();
}
