/**
 * The friendly workloads of `npm run bench:keys` (bench/keys.ts): every workload of workloads.ts
 * under regrid's key engine (the default policy, 'bounded'), the adaptive policy it replaced, the
 * article's window doubling (baseline), and the schemes teams use instead.
 */
import { writeFileSync } from 'node:fs';
import { probes, type Probe } from './probes.js';
import { probeTable, table, targets, targetTable, ARTICLE, type Results } from './report.js';
import { makeScheme, SCHEMES, type SchemeName } from './schemes.js';
import { run, workload, WORKLOADS, type RunResult, type WorkloadName } from './workloads.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function friendlyMain(): void {
  const seed = Number(option('seed') ?? 1);
  const seeds = Number(option('seeds') ?? 5);
  const jsonPath = option('json');
  const began = performance.now();

  function runOne(w: WorkloadName, s: SchemeName, withSeed = seed): RunResult {
    const wl = workload(w, withSeed);
    return run(wl, makeScheme(s, wl.seeds));
  }

  const results = {} as Results;
  for (const w of WORKLOADS) {
    results[w] = {} as Record<SchemeName, RunResult>;
    for (const s of SCHEMES) {
      results[w][s] = runOne(w, s);
      process.stderr.write(`  ${w} / ${s}: ${results[w][s].elapsed_ms.toFixed(0)} ms\n`);
    }
  }

  /** The random workload over several seeds, for the two integer policies: is one seed typical? */
  interface SeedSummary {
    readonly seeds: number[];
    readonly mean_rows_per_move: number;
    readonly worst_rows_per_move: number;
    readonly mean_relabels: number;
    readonly max_relabel_rows: number;
  }
  function acrossSeeds(s: SchemeName): SeedSummary {
    const list = Array.from({ length: seeds }, (_, i) => seed + i);
    const runs = list.map((n) => (n === seed ? results.random[s] : runOne('random', s, n)));
    const mean = (f: (r: RunResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
    return {
      seeds: list,
      mean_rows_per_move: mean((r) => r.rows_per_move),
      worst_rows_per_move: Math.max(...runs.map((r) => r.rows_per_move)),
      mean_relabels: mean((r) => r.relabels),
      max_relabel_rows: Math.max(...runs.map((r) => r.max_relabel_rows)),
    };
  }
  const randomSeeds = { baseline: acrossSeeds('baseline'), regrid: acrossSeeds('regrid') };

  const probeList: Probe[] = probes();
  const targetList = targets(results);
  const elapsedMs = performance.now() - began;

  const seedTable = [
    `random over seeds ${seed}-${seed + seeds - 1}   mean rows/move  worst rows/move  mean relabels  largest relabel`,
    ...(['baseline', 'regrid'] as const).map((s) => {
      const r = randomSeeds[s];
      return `${s.padEnd(28)}  ${r.mean_rows_per_move.toFixed(5).padStart(14)}  ${r.worst_rows_per_move.toFixed(5).padStart(15)}  ${r.mean_relabels.toFixed(1).padStart(13)}  ${String(r.max_relabel_rows).padStart(15)}`;
    }),
  ].join('\n');

  console.log(
    [
      `regrid key benchmark (seed ${seed}, ${process.version}, ${(elapsedMs / 1000).toFixed(1)} s)`,
      "article = the design article's published figure for its scheme; baseline = regrid running the",
      "article's window doubling; adaptive = the policy regrid used before issue 27; regrid = the default",
      "policy 'bounded' (proven amortized bound); rows include the moved post.",
      '',
      ...WORKLOADS.map((w) => table(results, w) + '\n'),
      seedTable,
      '',
      probeTable(probeList),
      '',
      targetTable(targetList),
    ].join('\n'),
  );

  if (jsonPath !== undefined) {
    const report = {
      seed,
      node: process.version,
      elapsed_ms: Math.round(elapsedMs),
      workloads: Object.fromEntries(
        WORKLOADS.map((w) => [w, { article: ARTICLE[w], ...results[w] }]),
      ),
      random_across_seeds: randomSeeds,
      probes: probeList,
      targets: targetList,
    };
    writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
    console.log(`\nwrote ${jsonPath}`);
  }
  if (targetList.some((t) => !t.met)) process.exitCode = 1;
}
