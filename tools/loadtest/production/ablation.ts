/**
 * Ablation of issue #32: the production-shaped workload (run.ts) with each mechanism switched
 * off by its own setting, in alternating runs (round r runs every variant once, in a rotated
 * order, so drift in the machine lands on all of them alike). Each run is a fresh
 * `tsx tools/cli.ts loadtest --workload production` process writing its own JSON; this file
 * only schedules them and prints medians side by side with their ratio to the baseline.
 *
 *   npx tsx tools/loadtest/production/ablation.ts --rounds 3 --out /tmp/abl -- <loadtest args>
 *   npx tsx tools/loadtest/production/ablation.ts --report /tmp/abl   (table of what is there)
 *
 * A variant is a name and the `--env KEY=VALUE` pairs that switch one mechanism off
 * (docs/benchmarks.md "Switches for an ablation run"). `--only a,b` keeps some of them.
 *
 * Before/after across commits: `--tree NAME=DIR` (repeatable) makes each NAME a variant that runs
 * the loadtest from checkout DIR (its own src/ and tools/), with no extra settings; `--baseline
 * NAME` says which variant the ratios are taken against (default `base`).
 *
 *   npx tsx tools/loadtest/production/ablation.ts --tree before=/work/wt/before --tree after=. \
 *     --baseline before --rounds 3 --out /tmp/ba -- <loadtest args>
 *
 * `--flush-redis N` empties Redis database N (the load tester's, 13 by default) before each run,
 * so no run starts from the entries another run (or another checkout's key format) left there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const VARIANTS: Readonly<Record<string, readonly string[]>> = {
  base: [],
  'no-display-copy': ['COPY_MIN_OVERRIDES=0'],
  'no-group-commit': ['WRITE_GROUP_MAX_WRITES=1'],
};

interface RunFile {
  readonly runs: Record<string, RunShape>;
}
interface RunShape {
  readonly saturation: { ops_per_s: number; cpu_us_per_request: number };
  readonly half: {
    latency_all_ms: { p50: number; p99: number };
    latency_ms: Record<string, { p50: number; p99: number; n: number }>;
    cache_hit_ratio: number | null;
    errors: number;
  };
  readonly checker: { violations: number; tombstones_unexplained: number | null };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function collect(dir: string) {
  const byVariant = new Map<string, RunShape[]>();
  for (const f of readdirSync(dir)
    .filter((n) => /^.+\.r\d+\.json$/.test(n))
    .sort()) {
    const variant = f.replace(/\.r\d+\.json$/, '');
    const file = JSON.parse(readFileSync(join(dir, f), 'utf8')) as RunFile;
    for (const run of Object.values(file.runs)) {
      if (!run || !('saturation' in run)) continue;
      byVariant.set(variant, [...(byVariant.get(variant) ?? []), run]);
    }
  }
  return byVariant;
}

export function report(dir: string, baseline = 'base'): string {
  const runs = collect(dir);
  const base = runs.get(baseline) ?? [];
  const bSat = median(base.map((r) => r.saturation.ops_per_s));
  const bP99 = median(base.map((r) => r.half.latency_all_ms.p99));
  const rows = [
    '| variant | runs | ops/s at saturation (each) | median | × base | p99 at half, ms (each) | median | × base | first page p99 | CPU µs/req | hit ratio | violations | tombstones unexplained |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, rs] of [...runs].sort(([a], [b]) =>
    a === baseline ? -1 : b === baseline ? 1 : a.localeCompare(b),
  )) {
    const sat = rs.map((r) => r.saturation.ops_per_s);
    const p99 = rs.map((r) => r.half.latency_all_ms.p99);
    const fp = median(rs.map((r) => r.half.latency_ms.first?.p99 ?? NaN));
    rows.push(
      `| ${name} | ${rs.length} | ${sat.map((x) => x.toFixed(0)).join(' / ')} | ${median(sat).toFixed(1)} | ${(median(sat) / bSat).toFixed(2)} | ${p99.map((x) => x.toFixed(0)).join(' / ')} | ${median(p99).toFixed(1)} | ${(median(p99) / bP99).toFixed(2)} | ${fp.toFixed(1)} | ${median(rs.map((r) => r.saturation.cpu_us_per_request)).toFixed(0)} | ${median(rs.map((r) => r.half.cache_hit_ratio ?? NaN)).toFixed(2)} | ${rs.map((r) => r.checker.violations).join('+')} | ${rs.map((r) => r.checker.tombstones_unexplained ?? 'n/a').join('+')} |`,
    );
  }
  return rows.join('\n');
}

function main() {
  const dash = process.argv.indexOf('--');
  const own = dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash);
  const passthrough = dash < 0 ? [] : process.argv.slice(dash + 1);
  const { values } = parseArgs({
    args: own,
    options: {
      rounds: { type: 'string', default: '3' },
      out: { type: 'string', default: '/tmp/regrid-ablation' },
      only: { type: 'string' },
      report: { type: 'string' },
      tree: { type: 'string', multiple: true },
      baseline: { type: 'string', default: 'base' },
      'flush-redis': { type: 'string' },
    },
  });
  const baseline = values.baseline!;
  if (values.report) {
    console.log(report(values.report, baseline));
    return;
  }
  const trees = new Map(
    (values.tree ?? []).map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]),
  );
  const names = trees.size
    ? [...trees.keys()]
    : values.only
      ? values.only.split(',')
      : Object.keys(VARIANTS);
  for (const n of names)
    if (!trees.has(n) && !(n in VARIANTS)) throw new Error(`unknown variant ${n}`);
  const out = resolve(values.out!);
  if (!existsSync(out)) mkdirSync(out, { recursive: true });
  const rounds = Number(values.rounds);
  for (let r = 1; r <= rounds; r++) {
    const order = names.map((_, i) => names[(i + r - 1) % names.length]!);
    for (const name of order) {
      const json = join(out, `${name}.r${r}.json`);
      if (existsSync(json)) continue;
      const env = (VARIANTS[name] ?? []).flatMap((e) => ['--env', e]);
      const args = ['tsx', 'tools/cli.ts', 'loadtest', ...passthrough, ...env, '--json', json];
      const t0 = Date.now();
      const db = values['flush-redis'];
      if (db !== undefined) spawnSync('redis-cli', ['-n', db, 'flushdb'], { stdio: 'ignore' });
      console.log(`[ablation] round ${r}: ${name} (${env.join(' ') || 'defaults'})`);
      const res = spawnSync('npx', args, {
        stdio: ['ignore', 'ignore', 'inherit'],
        cwd: trees.get(name) ?? process.cwd(),
      });
      console.log(
        `[ablation] round ${r}: ${name} exited ${res.status} after ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
  }
  console.log(report(out, baseline));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
