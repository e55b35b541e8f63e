/**
 * `npm run bench:read [-- --json PATH] [--seconds N] [--rounds N] [--connections N] [--herd N]
 *  [--samples N]`
 *
 * What the Redis read path buys, measured side by side in one run on loopback against the real
 * Cassandra (provisioned or reused like `npm start`, keyspace `regrid_bench`) and Redis. The app
 * is wired as src/server.ts wires it: per-request deadlines and the request log line (written, as
 * production writes stdout, by pino's asynchronous stream, here to the null device).
 * - first-page rps and p50/p99 through HTTP, every configuration once per round for `rounds`
 *   interleaved rounds, medians reported: a bare Hono route returning the same bytes (the
 *   ceiling), a Hono route doing one Redis GET of a value that size (the floor of any Redis hit),
 *   a hit with every tier (process-local rendering, then Redis), a 304 on If-None-Match, the
 *   Redis tier from a second service, the hit without rendered pages (cached order +
 *   bodies decoded and rendered per request: the path before the rendered tier), and a miss
 *   (a service built here without Redis: every first page, bodies included, read from Cassandra);
 * - the thundering herd: N simultaneous first-page readers of one hot profile right after its
 *   version changed, counting Cassandra fills (leases always on: src/ has no switch for them);
 * - cold and warm first page / page 5 latency with 0, 100, 1,000 and 10,000 overrides, the
 *   profiles visited in turn in each of `samples` rounds (read/depth.ts).
 * Prints a table; `--json PATH` also writes the figures (docs/cache.md quotes them).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { openIdGenerator } from '../src/bootstrap.js';
import { cursorKeyIdOf } from '../src/cache/keys.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { ensureRedis } from '../tools/infra/redis-local.js';
import { GridService } from '../src/service/grid-service.js';
import type { Cql } from '../src/store/cassandra.js';
import { listen } from './read/http.js';
import { depths } from './read/depth.js';
import { herd, throughput } from './read/measure.js';
import { ratio, table, worstDepthRatio } from './read/table.js';
import type { Bench } from './read/measure.js';
import { HOT_PROFILE, OVERRIDE_COUNTS, overrideProfile, seedBench } from './read/seed.js';
import { nullDeviceLogger, productionApp } from './read/wired.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: {
    json: { type: 'string' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    herd: { type: 'string', default: '1000' },
    samples: { type: 'string', default: '31' },
    'redis-timeout-ms': { type: 'string', default: '1000' },
  },
});
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const herdSize = Number(args.herd);
const samples = Number(args.samples);
const log = (line: string) => console.error(line);

/** Counts every statement, so the herd can report Cassandra work, not only fills. */
function counting(cql: Cql): { cql: Cql; count: () => number } {
  let n = 0;
  return {
    cql: {
      execute: (q, p, o) => (n++, cql.execute(q, p, o)),
      batch: (q, o) => (n++, cql.batch(q, o)),
    },
    count: () => n,
  };
}

async function main(): Promise<void> {
  // A looser Redis timeout than production's 150 ms: with the load generator, the server and
  // Cassandra sharing two cores, event-loop lag alone can exceed 150 ms and trip the breaker,
  // which would mix direct reads into the "cache hit" figures (docs/cache.md).
  const config = {
    ...loadConfig(),
    CASSANDRA_KEYSPACE: 'regrid_bench',
    REDIS_TIMEOUT_MS: Number(args['redis-timeout-ms']),
  };
  const session = await openLocalCassandra(config, log);
  const redisTarget = await ensureRedis(config, log);
  log(`[redis] ${redisTarget.detail}`);
  const guard = createRedisGuard(config, { log });
  if (!(await guard.waitReady(5000))) throw new Error('the read benchmark needs Redis');
  const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
    throw new Error(`lost worker lease ${w}: ${why}`);
  });
  const counted = counting(session.cql);
  // As src/server.ts: the same level, fields and asynchronous stream; only the target differs.
  const logger = nullDeviceLogger(config);
  const secret = randomBytes(24).toString('base64url');
  const make = (redis = true, overrides: Partial<Config> = {}) =>
    new GridService({
      cql: counted.cql,
      config: { ...config, ...overrides },
      ids,
      cursorSecret: secret,
      ...(redis ? { redis: guard } : {}),
    });

  try {
    await seedBench(make(false), log);
    const bench: Bench = {
      guard,
      cursorKeyId: cursorKeyIdOf(secret),
      queries: counted.count,
      async serve(opts, overrides) {
        const service = make(opts.redis ?? true, overrides);
        const app = productionApp(service, { secret, config, logger });
        const served = await listen(app);
        return { service, base: served.base, close: served.close };
      },
    };

    log('throughput…');
    const t = await throughput(bench, HOT_PROFILE, seconds, connections, rounds, log);
    log('thundering herd…');
    const withLeases = await herd(bench, HOT_PROFILE, herdSize);
    log('override depth…');
    const profiles = OVERRIDE_COUNTS.map((n) => ({ profileId: overrideProfile(n), overrides: n }));
    const byCount = await depths(bench, profiles, samples);

    const report = {
      machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? '?', node: process.version },
      settings: {
        seconds,
        rounds,
        interleaved: true,
        connections,
        herd_readers: herdSize,
        samples,
        limit: 24,
        redis_timeout_ms: config.REDIS_TIMEOUT_MS,
      },
      response_bytes: t.responseBytes,
      cached_rps: t.cached.rps,
      cached_p50_ms: t.cached.p50Ms,
      cached_p99_ms: t.cached.p99Ms,
      miss_rps: t.miss.rps,
      miss_p50_ms: t.miss.p50Ms,
      miss_p99_ms: t.miss.p99Ms,
      bare_rps: t.bare.rps,
      bare_p50_ms: t.bare.p50Ms,
      bare_p99_ms: t.bare.p99Ms,
      redis_get_floor_rps: t.redisFloor.rps,
      cached_redis_rps: t.cachedRedis.rps,
      cached_redis_p99_ms: t.cachedRedis.p99Ms,
      not_modified_rps: t.notModified.rps,
      rounds_rps: {
        bare: t.bare.roundsRps,
        redis_get_floor: t.redisFloor.roundsRps,
        cached: t.cached.roundsRps,
        not_modified: t.notModified.roundsRps,
        cached_redis: t.cachedRedis.roundsRps,
        miss: t.miss.roundsRps,
      },
      cached_over_bare: ratio(t.cached.rps, t.bare.rps),
      cached_over_redis_floor: ratio(t.cached.rps, t.redisFloor.rps),
      cached_redis_over_redis_floor: ratio(t.cachedRedis.rps, t.redisFloor.rps),
      not_modified_over_bare: ratio(t.notModified.rps, t.bare.rps),
      cached_over_miss: ratio(t.cached.rps, t.miss.rps),
      errors: [t.bare, t.redisFloor, t.cached, t.cachedRedis, t.notModified, t.miss]
        .map((x) => x.errors)
        .reduce((a, b) => a + b, 0),
      fills_during_cached_run: t.cachedFillsDuringRun,
      fills_with_leases: withLeases.fills,
      herd: { with_leases: withLeases },
      worst_page_ratio_most_vs_0_overrides: worstDepthRatio(byCount),
      overrides: Object.fromEntries(
        byCount.map((d) => [
          String(d.overrides),
          {
            reordered_copy: d.copiesBuilt > 0,
            cold_first_page_ms: d.coldFirstPageMs,
            page5_ms: d.page5Ms,
            warm_first_page_ms: d.warmFirstPageMs,
            warm_page5_ms: d.warmPage5Ms,
          },
        ]),
      ),
    };
    console.log(table(report, t, withLeases, byCount, { seconds, connections, samples }));
    if (args.json) {
      writeFileSync(args.json, JSON.stringify(report, null, 2) + '\n');
      log(`wrote ${args.json}`);
    }
  } finally {
    await lease.release();
    await guard.close();
    await session.client.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('bench:read failed:', err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
