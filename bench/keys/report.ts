/**
 * The key benchmark's report: the article's published figures, the project's targets, and the
 * side-by-side text table (article | regrid baseline | regrid | peers) for each workload.
 */
import type { Probe } from './probes.js';
import { SCHEMES, type SchemeName } from './schemes.js';
import type { RunResult, WorkloadName } from './workloads.js';

export type Results = Record<WorkloadName, Record<SchemeName, RunResult>>;

type Metric = Exclude<keyof RunResult, 'moves' | 'elapsed_ms'>;

/** Figures the design article (§4.3) publishes for its own scheme, by workload. */
export const ARTICLE: Record<WorkloadName, Partial<Record<Metric, number>>> = {
  random: { rows_per_move: 1.005, relabels: 30 },
  same_gap_1s: { rows_per_move: 1.2, max_relabel_rows: 65, inserts_before_first_relabel: 32 },
  same_gap_1d: { inserts_before_first_relabel: 49 },
  append: {},
  prepend: {},
};

export const DESCRIPTIONS: Record<WorkloadName, string> = {
  random: '300 posts 1 s-1 day apart, 100,000 moves of a random post to a random gap',
  same_gap_1s: '300 posts 1 s apart, 20,000 new posts each put directly above the same post',
  same_gap_1d: '300 posts 1 day apart, 20,000 new posts each put directly above the same post',
  append: '300 posts 1 s-1 day apart, 10,000 times the bottom post moves to the top',
  prepend: '300 posts 1 s-1 day apart, 10,000 times the top post moves to the bottom',
};

const METRICS: readonly [Metric, string][] = [
  ['rows_per_move', 'rows per move'],
  ['relabels', 'relabels'],
  ['max_relabel_rows', 'largest relabel (rows)'],
  ['inserts_before_first_relabel', 'moves before 1st relabel'],
  ['max_key_bytes', 'max key bytes'],
  ['mean_key_bytes', 'mean key bytes'],
  ['failures', 'failures'],
  ['order_violations', 'order violations'],
];

const COLUMNS: readonly [SchemeName, string][] = [
  ['baseline', 'baseline'],
  ['adaptive', 'adaptive'],
  ['regrid', 'regrid'],
  ['dense', 'dense'],
  ['float', 'float'],
  ['float_ms', 'float_ms'],
  ['fractional_indexing', 'fractional'],
  ['lexorank', 'lexorank'],
];

function format(metric: Metric, v: number | null | undefined): string {
  if (v === undefined) return '-';
  if (v === null) return 'never';
  if (Number.isInteger(v)) return String(v);
  return metric === 'rows_per_move' && v < 10 ? v.toFixed(5) : v.toFixed(1);
}

export function table(results: Results, name: WorkloadName): string {
  const head = ['', 'article', ...COLUMNS.map(([, h]) => h)];
  const rows = METRICS.map(([m, label]) => [
    label,
    String(ARTICLE[name][m] ?? '-'),
    ...COLUMNS.map(([s]) => format(m, results[name][s][m])),
  ]);
  const widths = head.map((_, c) => Math.max(...[head, ...rows].map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [`${name}: ${DESCRIPTIONS[name]}`, line(head), ...rows.map(line)].join('\n');
}

export function probeTable(list: readonly Probe[]): string {
  const width = Math.max(...list.map((p) => p.what.length));
  return [
    `peer figures from the article${' '.repeat(Math.max(width - 29, 0))}  article  measured`,
    ...list.map(
      (p) =>
        `${p.what.padEnd(width)}  ${String(p.article).padStart(7)}  ${String(p.measured).padStart(8)}`,
    ),
  ].join('\n');
}

export interface Target {
  readonly what: string;
  readonly value: string;
  readonly met: boolean;
}

/** Issue 6's targets for regrid's default policy ('bounded'), checked against this run. */
export function targets(r: Results): Target[] {
  const overhead = (w: WorkloadName, s: SchemeName) => r[w][s].rows_per_move - 1;
  const ratio = (w: WorkloadName) => overhead(w, 'regrid') / overhead(w, 'baseline');
  const largest = Math.max(...Object.values(r).map((byScheme) => byScheme.regrid.max_relabel_rows));
  const violations = Object.values(r).reduce(
    (n, byScheme) => n + SCHEMES.reduce((m, s) => m + byScheme[s].order_violations, 0),
    0,
  );
  return [
    {
      what: 'random: regrid rows per move <= 1.005',
      value: r.random.regrid.rows_per_move.toFixed(5),
      met: r.random.regrid.rows_per_move <= 1.005,
    },
    ...(['same_gap_1s', 'same_gap_1d'] as const).map((w) => ({
      what: `${w}: regrid overhead (rows per insert - 1) <= half of baseline's`,
      value: `${overhead(w, 'regrid').toFixed(4)} vs ${overhead(w, 'baseline').toFixed(4)} (${(ratio(w) * 100).toFixed(0)}%)`,
      met: ratio(w) <= 0.5,
    })),
    {
      what: 'all workloads: regrid largest relabel <= 130 rows (2 x 65)',
      value: String(largest),
      met: largest <= 130,
    },
    { what: 'all schemes: order violations = 0', value: String(violations), met: violations === 0 },
  ];
}

export function targetTable(list: readonly Target[]): string {
  const width = Math.max(...list.map((t) => t.what.length));
  return [
    'regrid targets',
    ...list.map((t) => `${t.met ? 'met    ' : 'NOT MET'}  ${t.what.padEnd(width)}  ${t.value}`),
  ].join('\n');
}
