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
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { GridService } from '../src/service/grid-service.js';
import { depths } from './read/depth.js';
import { overrideProfile, seedOverrideProfile } from './read/seed.js';
import { openOverrideBench } from './read/override-bench.js';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '11' } } });
const samples = Number(args.samples);
const log = (line: string) => console.error(line);

async function main(): Promise<void> {
  const base = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench', REDIS_TIMEOUT_MS: 1000 };
  const { cql, ids, guard, secret, benchOf, close } = await openOverrideBench(
    base,
    log,
    'bench:copy',
  );
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
  const bench = benchOf(() => make(true, plan[next++]!.copyMin));
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
    await close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('bench/display-copy failed:', err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
