/**
 * `npm run bench:copy -- [--samples N]`
 *
 * Does the reordered display copy earn its place (issue #32: "a page of a grid with 10,000
 * overrides within 1.5x of one with none, in the same run")? The reads of bench/overrides.ts
 * (cold and warm first page and page 5, limit 24, over loopback HTTP, keyspace `regrid_bench`)
 * for the 0- and the 10,000-override profile, each served once with the copy (COPY_MIN_OVERRIDES
 * at its default) and once without (0), all four in one process; bench/read/depth.ts `depths`
 * visits the four in turn every round, so load from other work lands on all of them alike.
 * Prints each read's ratio 10,000 / 0 with the copy and without it (docs/benchmarks.md).
 */
import { cursorKeyIdOf } from '../src/cache/keys.js';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openIdGenerator } from '../src/bootstrap.js';
import { createRedisGuard } from '../src/cache/redis.js';
import { loadConfig } from '../src/config/config.js';
import { createApp } from '../src/http/app.js';
import { GridService } from '../src/service/grid-service.js';
import type { Cql } from '../src/store/cassandra.js';
import { ensureRedis } from '../tools/infra/redis-local.js';
import { listen } from './read/http.js';
import type { Bench } from './read/measure.js';
import { depths } from './read/depth.js';
import { overrideProfile, seedOverrideProfile } from './read/seed.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '11' } } });
const samples = Number(args.samples);
const log = (line: string) => console.error(line);

async function main(): Promise<void> {
  const base = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', REDIS_TIMEOUT_MS: 1000 };
  const session = await openLocalCassandra(base, log);
  log(`[redis] ${(await ensureRedis(base, log)).detail}`);
  const guard = createRedisGuard(base, { log });
  if (!(await guard.waitReady(5000))) throw new Error('needs Redis');
  const { ids, lease } = await openIdGenerator(session.cql, base, (w, why) => {
    throw new Error(`lost worker lease ${w}: ${why}`);
  });
  let statements = 0;
  const cql: Cql = {
    execute: (q, p, o) => (statements++, session.cql.execute(q, p, o)),
    batch: (q, o) => (statements++, session.cql.batch(q, o)),
  };
  const secret = randomBytes(24).toString('base64url');
  const make = (redis: boolean, copyMin: number) =>
    new GridService({
      cql,
      config: { ...base, COPY_MIN_OVERRIDES: copyMin },
      ids,
      cursorSecret: secret,
      ...(redis ? { redis: guard } : {}),
    });
  const plan = [
    { label: 'copy on,  0 overrides', n: 0, copyMin: base.COPY_MIN_OVERRIDES },
    { label: 'copy on,  10k overrides', n: 10_000, copyMin: base.COPY_MIN_OVERRIDES },
    { label: 'copy off, 0 overrides', n: 0, copyMin: 0 },
    { label: 'copy off, 10k overrides', n: 10_000, copyMin: 0 },
  ];
  let next = 0;
  const bench: Bench = {
    cursorKeyId: cursorKeyIdOf(secret),
    guard,
    queries: () => statements,
    async serve() {
      const service = make(true, plan[next++]!.copyMin);
      const app = createApp({
        service,
        jwtSecret: secret,
        bodyLimitBytes: base.BODY_LIMIT_BYTES,
        readiness: async () => ({ ready: true, checks: {} }),
      });
      const served = await listen(app);
      return { service, base: served.base, close: served.close };
    },
  };
  try {
    for (const n of [0, 10_000]) await seedOverrideProfile(make(false, 0), n, log);
    const reports = await depths(
      bench,
      plan.map((p) => ({ profileId: overrideProfile(p.n), overrides: p.n })),
      samples,
    );
    for (const [i, r] of reports.entries()) console.log(plan[i]!.label, JSON.stringify(r));
    const [on0, onN, off0, offN] = reports as [
      (typeof reports)[0],
      (typeof reports)[0],
      (typeof reports)[0],
      (typeof reports)[0],
    ];
    for (const k of ['coldFirstPageMs', 'warmFirstPageMs', 'page5Ms', 'warmPage5Ms'] as const) {
      console.log(
        `${k.padEnd(16)} copy on: ${on0[k]} / ${onN[k]} = ${(onN[k] / on0[k]).toFixed(2)}x   copy off: ${off0[k]} / ${offN[k]} = ${(offN[k] / off0[k]).toFixed(2)}x`,
      );
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
    console.error('bench/display-copy failed:', err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
