/**
 * `npx tsx bench/overrides.ts [--overrides N] [--samples N] [--rounds N]`
 *
 * The quick half of `bench:read`: only the override-depth measurement, for a profile of 10,000
 * posts with N overrides (default 10,000: every post moved) against the 0-override profile, in
 * keyspace `regrid_bench` on the real Cassandra and Redis, through loopback HTTP. Both profiles
 * are seeded exactly as `bench:read` seeds them (reused when already there).
 *
 * Reads: cold and warm first page and page 5 (limit 24; cold = the profile's summary, order,
 * override list and bodies deleted from Redis first). Each round takes the median of `samples`
 * reads per profile; the table shows the median over `rounds` (the two profiles alternate, so
 * load from other work on the machine hits both alike), the ratio N / 0, and the median number
 * of Cassandra statements a read issued (bodies included when cold).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { GridService } from '../src/service/grid-service.js';
import { depth, type DepthReport } from './read/depth.js';
import { overrideProfile, POSTS_PER_OVERRIDE_PROFILE, seedOverrideProfile } from './read/seed.js';
import { openOverrideBench } from './read/override-bench.js';

const { values: args } = parseArgs({
  options: {
    overrides: { type: 'string', default: String(POSTS_PER_OVERRIDE_PROFILE) },
    samples: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
  },
});
const overrides = Number(args.overrides);
const samples = Number(args.samples);
const rounds = Number(args.rounds);
if (!Number.isInteger(overrides) || overrides < 1 || overrides > POSTS_PER_OVERRIDE_PROFILE) {
  throw new RangeError(`--overrides must be 1..${POSTS_PER_OVERRIDE_PROFILE}`);
}
const log = (line: string) => console.error(line);

/** Each read's name and (ms, statements) out of one round's report. */
const READS: ReadonlyArray<readonly [string, (d: DepthReport) => readonly [number, number]]> = [
  ['cold first page', (d) => [d.coldFirstPageMs, d.statements.coldFirstPage]],
  ['warm first page', (d) => [d.warmFirstPageMs, d.statements.warmFirstPage]],
  ['cold page 5', (d) => [d.page5Ms, d.statements.page5]],
  ['warm page 5', (d) => [d.warmPage5Ms, d.statements.warmPage5]],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', REDIS_TIMEOUT_MS: 1000 };
  const { cql, ids, guard, secret, benchOf, close } = await openOverrideBench(
    config,
    log,
    'the override bench',
  );
  const make = (redis: boolean) =>
    new GridService({ cql, config, ids, cursorSecret: secret, ...(redis ? { redis: guard } : {}) });
  const bench = benchOf(() => make(true));
  try {
    for (const n of [0, overrides]) await seedOverrideProfile(make(false), n, log);
    const runs = new Map<number, DepthReport[]>([
      [0, []],
      [overrides, []],
    ]);
    for (let r = 0; r < rounds; r++) {
      for (const n of [0, overrides]) {
        log(`round ${r + 1}/${rounds}: ${n} overrides…`);
        runs.get(n)!.push(await depth(bench, overrideProfile(n), n, samples));
      }
    }
    console.log(table(runs.get(0)!, runs.get(overrides)!));
  } finally {
    await close();
  }
}

function table(base: DepthReport[], deep: DepthReport[]): string {
  const pad = (cells: Array<string | number>) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(16) : String(c).padStart(14))).join('');
  const fmt = (x: number) => (Math.round(x * 100) / 100).toFixed(2);
  const lines = READS.map(([name, pick]) => {
    const ms0 = median(base.map((d) => pick(d)[0]));
    const msN = median(deep.map((d) => pick(d)[0]));
    const st = `${median(base.map((d) => pick(d)[1]))} / ${median(deep.map((d) => pick(d)[1]))}`;
    return pad([name, fmt(ms0), fmt(msN), `${fmt(msN / ms0)}x`, st]);
  });
  return [
    `override depth: ${POSTS_PER_OVERRIDE_PROFILE} posts, 0 vs ${overrides} overrides, limit 24`,
    `(ms: median over ${rounds} rounds of the median of ${samples} reads; cold = nothing in Redis)`,
    pad(['read', '0 overrides', `${overrides} overr.`, 'ratio', 'statements']),
    ...lines,
  ].join('\n');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('bench/overrides failed:', err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
