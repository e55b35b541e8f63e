/**
 * Every design of a `--compare` run in one table (regrid, naive, postgres): one row per figure,
 * one column per design, plus throughput and read ratios against the first design (regrid), all
 * from the same workload and seed in the same run. Pure: reports in, object and text out.
 */
import type { DesignReport } from './report.js';

export interface SideBySide {
  readonly designs: readonly string[];
  /** figure → value per design, in `designs` order. */
  readonly rows: Readonly<Record<string, ReadonlyArray<number | string | null>>>;
}

const ratio = (a: number | null, b: number | null) =>
  a === null || b === null || b === 0 ? null : Math.round((a / b) * 100) / 100;

const arrow = (a: number | null, b: number | null) => `${a ?? 'n/a'} → ${b ?? 'n/a'}`;

export function sideBySide(reports: readonly DesignReport[]): SideBySide {
  const base = reports[0]!;
  const row = <T extends number | string | null>(f: (r: DesignReport) => T) => reports.map(f);
  return {
    designs: reports.map((r) => r.design),
    rows: {
      moves_acked: row((r) => r.moves),
      moves_attempted: row((r) => r.moves_attempted),
      errors: row((r) => r.errors),
      moves_per_s: row((r) => r.moves_per_s),
      moves_per_s_vs_first: row((r) => ratio(r.moves_per_s, base.moves_per_s)),
      scenario: row((r) => r.scenario),
      ceiling_store: row((r) => r.ceiling_store),
      raw_ceiling_per_s: row((r) => r.raw_ceiling_per_s),
      ceiling_ratio: row((r) => r.ceiling_ratio),
      raw_partition_ceiling_per_s: row((r) => r.raw_partition_ceiling_per_s),
      partition_ceiling_ratio: row((r) => r.partition_ceiling_ratio),
      contention_503: row((r) => r.contention_503),
      cas_attempts_per_move: row((r) => r.cas_attempts_per_move),
      move_p50_ms: row((r) => r.move_p50_ms),
      move_p99_ms: row((r) => r.move_p99_ms),
      read_p50_ms_under_load: row((r) => r.read_p50_ms),
      read_p99_ms_under_load: row((r) => r.read_p99_ms),
      first_page_ms_quiet: row((r) => arrow(r.initial_first_page_ms, r.final_first_page_ms)),
      first_page_vs_first: row((r) => ratio(r.final_first_page_ms, base.final_first_page_ms)),
      whole_grid_ms_quiet: row((r) => arrow(r.initial_full_read_ms, r.final_full_read_ms)),
      rows_per_move: row((r) => r.rows_per_move),
      relabels: row((r) => r.relabels),
      cas_retries: row((r) => r.cas_retries),
      tombstones_written: row((r) => r.tombstones_written),
      tombstones_per_first_page_max: row((r) => r.tombstones_scanned_per_read_max),
      tombstones_per_whole_grid_max: row((r) => r.tombstones_scanned_full_read_max),
      busiest_grid_live_rows: row((r) => r.busiest_grid_live_rows),
      violations: row((r) => r.violations.length),
      duplicates: row((r) => r.violations_by_kind.duplicate),
      lost: row((r) => r.violations_by_kind.lost),
      misordered_grids: row((r) => r.violations_by_kind.order),
    },
  };
}

export function summarizeSideBySide(t: SideBySide): string {
  const cells = Object.entries(t.rows).map(([k, vs]) => [k, ...vs.map((v) => String(v ?? 'n/a'))]);
  const head = ['', ...t.designs];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    '  ' + c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [
    `== side by side (same workload and seed; ratios are × ${t.designs[0]})`,
    line(head),
    ...cells.map(line),
  ].join('\n');
}
