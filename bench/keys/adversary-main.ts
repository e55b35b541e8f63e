/**
 * `npm run bench:keys -- --adversary`: runs adversary-run.ts for every adversary and size, the
 * property check, prints the tables, writes `--json PATH` as
 * {"cap", "default_policy", "runs": [{policy, adversary, n, moves, amortized_rows_per_move,
 * worst_move_rows, bound, …}], "property"} and sets a non-zero exit code when the default policy's
 * worst write exceeds the cap, its amortized rows exceed the bound, or the property check fails.
 */
import { writeFileSync } from 'node:fs';
import { DEFAULT_ROW_CAP } from '../../src/domain/keys.js';
import { DEFAULT_POLICY } from './policies.js';
import { ADVERSARIES } from './adversaries.js';
import {
  adversaryTable,
  propertyCheck,
  runAdversary,
  SIZES,
  type AdversaryRun,
} from './adversary-run.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function adversaryMain(): void {
  const moves = Number(option('moves') ?? 10_000);
  const propertyMoves = Number(option('property-moves') ?? 1_000_000);
  const propertyN = Number(option('property-n') ?? 1_000);
  const jsonPath = option('json');
  const began = performance.now();
  const runs: AdversaryRun[] = [];
  for (const a of ADVERSARIES) {
    for (const n of SIZES) {
      for (const [policy, cap] of [
        ['adaptive', undefined],
        [DEFAULT_POLICY, DEFAULT_ROW_CAP],
      ] as const) {
        const r = runAdversary(a, n, moves, policy, cap);
        runs.push(r);
        process.stderr.write(
          `  ${a} n=${n} ${policy}: ${r.amortized_rows_per_move.toFixed(4)} rows/move, worst ${r.worst_move_rows} (${r.elapsed_ms} ms)\n`,
        );
      }
    }
  }
  console.log(adversaryTable(runs) + '\n');
  const property = propertyCheck(propertyN, propertyMoves);
  const mine = runs.filter((r) => r.policy === DEFAULT_POLICY);
  const checks = [
    {
      what: `${DEFAULT_POLICY}: worst single write <= cap ${DEFAULT_ROW_CAP}`,
      value: String(Math.max(...mine.map((r) => r.worst_move_rows))),
      met: mine.every((r) => r.worst_move_rows <= DEFAULT_ROW_CAP),
    },
    {
      what: `${DEFAULT_POLICY}: amortized rows per move <= bound(n), every adversary`,
      value:
        Math.max(...mine.map((r) => r.amortized_rows_per_move / r.bound)).toFixed(4) +
        ' of the bound at most',
      met: mine.every((r) => r.amortized_rows_per_move <= r.bound),
    },
    {
      what: `property: rows <= bound(n)·t + Φ_0 after every one of ${propertyMoves} mixed moves, n = ${propertyN}`,
      value: `least slack ${property.worst_slack.toFixed(0)} (bound ${property.bound.toFixed(1)}, Φ_0 ${property.phi0.toFixed(0)})`,
      met: property.held,
    },
  ];
  const elapsed = performance.now() - began;
  console.log(
    [
      `regrid key adversaries (${moves} moves a run, cap ${DEFAULT_ROW_CAP}, ${process.version}, ${(elapsed / 1000).toFixed(0)} s)`,
      'rows include the moved post; "worst" = the largest single write; "worst total" = the most rows',
      'one capped move wrote over all its writes; bound = the proven amortized bound for that n.',
      '',
      ...checks.map((c) => `${c.met ? 'met    ' : 'NOT MET'}  ${c.what}  ${c.value}`),
    ].join('\n'),
  );
  if (jsonPath !== undefined) {
    const report = { cap: DEFAULT_ROW_CAP, default_policy: DEFAULT_POLICY, runs, property, checks };
    writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
    console.log(`\nwrote ${jsonPath}`);
  }
  if (checks.some((c) => !c.met)) process.exitCode = 1;
}
