/** The human summary printed at the end of a load-test run, from the report objects (report.ts). */
import { mixLines } from './mix-report.js';
import type { Comparison, DesignReport } from './report.js';

const n = (x: number | null, unit = '') => (x === null ? 'n/a' : `${x}${unit}`);

/** The floors of the design's store and moves/s against them (scenario-report.ts). */
function ceilingLines(r: DesignReport): string[] {
  const what =
    r.ceiling_store === 'postgres'
      ? 'bare version-bump transactions/s (PostgreSQL floor)'
      : 'conditional batches/s';
  const lines = [
    `  contention   ${r.contention_503} × 503 contention; ${n(r.cas_attempts_per_move)} CAS attempts (conditional batches) per move (${r.cas_attempts_source})`,
  ];
  if (r.raw_ceiling_per_s !== null || r.raw_partition_ceiling_per_s === null) {
    lines.push(
      `  raw ceiling  ${n(r.raw_ceiling_per_s, ` ${what}`)}, distinct partitions, concurrency ${r.concurrency}; moves/s = ${n(r.ceiling_ratio)} × ceiling`,
    );
  }
  if (r.raw_partition_ceiling_per_s !== null) {
    lines.push(
      `  partition    ${r.raw_partition_ceiling_per_s} ${what}, ONE partition from ONE writer; moves/s = ${n(r.partition_ceiling_ratio)} × that`,
    );
  }
  return lines;
}

export function summarizeDesign(r: DesignReport): string {
  const kinds = Object.entries(r.violations_by_kind)
    .filter(([, c]) => c > 0)
    .map(([k, c]) => `${k} ${c}`)
    .join(', ');
  const lines = [
    `== ${r.design} (${r.transport}), scenario ${r.scenario} — ${r.profiles} profiles × ${r.posts_per_profile} posts, concurrency ${r.concurrency}, hot ${r.hot}`,
    `  moves        ${r.moves} acknowledged of ${r.moves_attempted} (${r.errors} errors: ${r.rejected} rejected, ${r.uncertain} unknown outcome) in ${r.seconds} s`,
    ...(r.uncertain > 0
      ? [
          `  unknown      ${r.uncertain} moves of unknown outcome, resolved against the final read: ${r.uncertain_resolved.committed} committed, ${r.uncertain_resolved.not_applied} not applied`,
        ]
      : []),
    ...r.events.map(
      (e) =>
        `  event        ${e.name} at ${Math.round(e.at * 100)}% of the run (${e.startedS.toFixed(1)} s, move ${e.movesAttempted}), done at ${e.doneS.toFixed(1)} s`,
    ),
    `  throughput   ${r.moves_per_s} moves/s; move p50 ${n(r.move_p50_ms, ' ms')}, p99 ${n(r.move_p99_ms, ' ms')}`,
    ...ceilingLines(r),
    `  reads        first page p50 ${n(r.read_p50_ms, ' ms')}, p99 ${n(r.read_p99_ms, ' ms')} (${r.reads} reads); busiest grid, quiet, before → after: first page ${n(r.initial_first_page_ms, ' ms')} → ${n(r.final_first_page_ms, ' ms')}, whole grid ${n(r.initial_full_read_ms, ' ms')} → ${n(r.final_full_read_ms, ' ms')}`,
    `  writes       ${n(r.rows_per_move)} rows/move, ${n(r.relabels)} relabels (${n(r.relabelled_rows)} rows), ${n(r.cas_retries)} CAS retries`,
    `  tombstones   ${r.tombstones_written} in the run's partitions (${Object.entries(
      r.tombstones_by_table,
    )
      .map(([t, c]) => `${t} ${c}`)
      .join(
        ', ',
      )}); max scanned by one read of the busiest grid: ${r.tombstones_scanned_per_read_max} (first page), ${r.tombstones_scanned_full_read_max} (whole grid, ${n(r.busiest_grid_live_rows)} live rows)`,
    ...mixLines(r),
  ];
  if (r.table_metrics) {
    const m = Object.entries(r.table_metrics).map(
      ([t, s]) =>
        `${t}: ${s.sstables} sstables, ${s.sstableTombstones} sstable tombstones, max ${s.maxTombstonesPerSlice}/slice`,
    );
    lines.push(`  tables       ${m.join('; ')} (whole tables, after flush)`);
  }
  if (r.store_stats) {
    const m = Object.entries(r.store_stats).map(
      ([t, s]) =>
        `${t}: ${Object.entries(s)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
    );
    lines.push(`  store stats  ${m.join('; ')} (no tombstones: dead tuples, until VACUUM)`);
  }
  lines.push(
    `  violations   ${r.violations.length === 0 ? 'none' : `${r.violations.length} (${kinds})`}` +
      (r.grids_order_unchecked > 0
        ? `; order unchecked on ${r.grids_order_unchecked} grid(s) with unknown outcomes`
        : ''),
  );
  for (const v of r.violations.slice(0, 8)) {
    lines.push(
      `    - ${v.kind} on profile ${v.profile}${v.posts.length ? ` posts [${v.posts.join(', ')}]` : ''}: ${v.detail}`,
    );
  }
  if (r.violations.length > 8)
    lines.push(`    … ${r.violations.length - 8} more in the JSON report`);
  for (const e of r.error_samples.slice(0, 3)) lines.push(`  error sample: ${e}`);
  return lines.join('\n');
}

export function summarizeComparison(c: Comparison): string {
  return [
    '== regrid vs naive (same workload and seed)',
    `  tombstones written       regrid ${c.tombstones_written.regrid}  naive ${c.tombstones_written.naive}`,
    `  max tombstones per read  first page: regrid ${c.tombstones_scanned_per_read_max.regrid}  naive ${c.tombstones_scanned_per_read_max.naive}; whole grid: regrid ${c.tombstones_scanned_full_read_max.regrid}  naive ${c.tombstones_scanned_full_read_max.naive}`,
    `  violations               regrid ${c.violations.regrid}  naive ${c.violations.naive} (duplicates: regrid ${c.duplicates.regrid}, naive ${c.duplicates.naive})`,
    `  read latency naive/regrid after the same moves (busiest grid, quiet): first page ${n(c.read_latency_ratio_naive_over_regrid, '×')}, whole grid ${n(c.full_read_latency_ratio_naive_over_regrid, '×')}; first-page p50 during the run ${n(c.read_p50_ratio_naive_over_regrid, '×')}`,
    `  read latency after/before the moves (busiest grid, quiet): first page regrid ${n(c.read_growth.regrid, '×')}  naive ${n(c.read_growth.naive, '×')}; whole grid regrid ${n(c.full_read_growth.regrid, '×')}  naive ${n(c.full_read_growth.naive, '×')}`,
  ].join('\n');
}
