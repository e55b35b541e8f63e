/**
 * The load-test report: one JSON object per design (field names are the documented contract, see
 * docs/loadtest.md) plus, with --compare, the side-by-side figures (the human summary is report-text.ts). Pure:
 * figures in, objects out.
 */
import { countByKind, type Violation, type ViolationKind } from './checker.js';
import type { DesignName } from './design.js';
import type { SamplePoint, WorkloadResult } from './runner.js';
import { casAttemptsPerMove, type ScenarioFields } from './scenario-report.js';
import type { Scenario } from './scenario.js';
import { median, round2 } from './stats.js';
import type { Mix } from './mix.js';
import type { OpTallies } from './mixed-step.js';
import type { TombstoneCauses } from './tombstone-causes.js';
import type { PartitionTombstones, TableMetric } from './tombstones.js';

export interface DesignReport extends ScenarioFields {
  readonly design: DesignName;
  readonly transport: string;
  readonly profiles: number;
  readonly posts_per_profile: number;
  readonly concurrency: number;
  readonly hot: number;
  readonly seed: number;
  /** Acknowledged moves. */
  readonly moves: number;
  readonly moves_attempted: number;
  readonly errors: number;
  readonly rejected: number;
  readonly uncertain: number;
  /** Unknown-outcome moves resolved against the final read (checker.ts, unknown-outcomes.ts). */
  readonly uncertain_resolved: { committed: number; not_applied: number };
  /** What was done to the cluster during the run (--kill-node-at, --restart-node-at). */
  readonly events: WorkloadResult['events'];
  readonly seconds: number;
  readonly moves_per_s: number;
  readonly move_p50_ms: number | null;
  readonly move_p99_ms: number | null;
  readonly read_p50_ms: number | null;
  readonly read_p99_ms: number | null;
  readonly reads: number;
  /** Median first-page / whole-grid read of the busiest grid before any move and after the run. */
  readonly initial_first_page_ms: number | null;
  readonly final_first_page_ms: number | null;
  readonly initial_full_read_ms: number | null;
  readonly final_full_read_ms: number | null;
  readonly cas_retries: number | null;
  readonly rows_per_move: number | null;
  readonly relabels: number | null;
  readonly relabelled_rows: number | null;
  /** Tombstones in the run's partitions, counted by Cassandra on traced full reads. */
  readonly tombstones_written: number;
  readonly tombstones_by_table: Readonly<Record<string, number>>;
  readonly tombstones_scanned_per_read_max: number;
  /** Max tombstones met by a whole-grid read of the busiest grid, over the samples. */
  readonly tombstones_scanned_full_read_max: number;
  /** Live rows in the busiest grid's partitions at the end (posts, overrides, duplicates). */
  readonly busiest_grid_live_rows: number | null;
  /** Whole-table figures after a flush (nodetool tablestats + sstablemetadata); null if remote. */
  readonly table_metrics: Readonly<Record<string, TableMetric>> | null;
  /** Store-side table figures of a non-Cassandra design (PostgreSQL: pg_stat_user_tables). */
  readonly store_stats?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly violations: readonly Violation[];
  readonly violations_by_kind: Record<ViolationKind, number>;
  readonly grids_order_unchecked: number;
  readonly raw_ceiling_per_s: number | null;
  readonly moves_per_s_vs_raw_ceiling: number | null;
  readonly samples: readonly SamplePoint[];
  readonly error_samples: readonly string[];
  readonly unreadable_partitions: readonly string[];
  /** --mix only: the proportions asked for, each kind by outcome, and tombstones by cause. */
  readonly mix?: Mix;
  readonly operations?: OpTallies;
  /** Acknowledged operations of every kind per second of workload. */
  readonly operations_per_s?: number;
  /** Posts on the final grids whose place the model cannot name, left out of the order check. */
  readonly posts_order_uncompared?: number;
  readonly tombstones_by_cause?: TombstoneCauses['byCause'];
  /** Tombstones on rows no delete or archive explains, by table (a violation when not 0). */
  readonly tombstones_unexplained?: TombstoneCauses['unexplained'];
}

/** Read latencies (ms) of the busiest grid with nothing else running. */
export interface QuietReads {
  readonly firstPage: readonly number[];
  readonly full: readonly number[];
}

export interface ReportInputs {
  readonly design: DesignName;
  readonly transport: string;
  readonly plan: {
    scenario: Scenario;
    profiles: number;
    posts: number;
    concurrency: number;
    hot: number;
    seed: number;
    mix?: Mix | null;
  };
  readonly work: WorkloadResult;
  readonly reads: readonly number[];
  readonly quiet: { before: QuietReads; after: QuietReads };
  readonly tombstones: PartitionTombstones;
  readonly tableMetrics: Record<string, TableMetric> | null;
  readonly violations: readonly Violation[];
  readonly ordersUnchecked: number;
  readonly resolved?: { readonly committed: number; readonly notApplied: number };
  readonly rawCeilingPerS: number | null;
  readonly causes?: TombstoneCauses | null;
  readonly floating?: number;
}

/** The --mix fields of a report; none for a moves-only run. */
function mixFields(i: ReportInputs): Partial<DesignReport> {
  const ops = i.work.operations;
  if (!i.plan.mix || !ops) return {};
  const acked = Object.values(ops).reduce((n, t) => n + t.acked, 0);
  return {
    mix: i.plan.mix,
    operations: ops,
    operations_per_s: round2(i.work.seconds > 0 ? acked / i.work.seconds : 0)!,
    posts_order_uncompared: i.floating ?? 0,
    ...(i.causes
      ? { tombstones_by_cause: i.causes.byCause, tombstones_unexplained: i.causes.unexplained }
      : {}),
  };
}

export function buildDesignReport(i: ReportInputs): DesignReport {
  const w = i.work;
  const movesPerS = w.seconds > 0 ? w.acked / w.seconds : 0;
  const sortedReads = [...i.reads].sort((a, b) => a - b);
  const pick = (p: number) =>
    sortedReads.length === 0
      ? null
      : sortedReads[
          Math.min(sortedReads.length - 1, Math.ceil((p / 100) * sortedReads.length) - 1)
        ]!;
  return {
    design: i.design,
    scenario: i.plan.scenario,
    transport: i.transport,
    profiles: i.plan.profiles,
    posts_per_profile: i.plan.posts,
    concurrency: i.plan.concurrency,
    hot: i.plan.hot,
    seed: i.plan.seed,
    moves: w.acked,
    moves_attempted: w.attempted,
    errors: w.errors,
    rejected: w.rejected,
    uncertain: w.uncertain,
    uncertain_resolved: {
      committed: i.resolved?.committed ?? 0,
      not_applied: i.resolved?.notApplied ?? 0,
    },
    events: w.events,
    seconds: round2(w.seconds)!,
    moves_per_s: round2(movesPerS)!,
    move_p50_ms: round2(w.moveLatency.percentile(50)),
    move_p99_ms: round2(w.moveLatency.percentile(99)),
    read_p50_ms: round2(pick(50)),
    read_p99_ms: round2(pick(99)),
    reads: i.reads.length,
    initial_first_page_ms: round2(median(i.quiet.before.firstPage)),
    final_first_page_ms: round2(median(i.quiet.after.firstPage)),
    initial_full_read_ms: round2(median(i.quiet.before.full)),
    final_full_read_ms: round2(median(i.quiet.after.full)),
    cas_retries: w.casRetries,
    rows_per_move: w.rowsKnown > 0 ? round2(w.rowsWritten / w.rowsKnown) : null,
    // Unknown over HTTP (the API does not say), like rows per move.
    relabels: w.rowsKnown > 0 ? w.relabels : null,
    relabelled_rows: w.rowsKnown > 0 ? w.relabelledRows : null,
    tombstones_written: i.tombstones.total,
    tombstones_by_table: i.tombstones.byTable,
    tombstones_scanned_per_read_max: Math.max(0, ...w.samples.map((s) => s.tombstones)),
    tombstones_scanned_full_read_max: Math.max(0, ...w.samples.map((s) => s.fullTombstones)),
    busiest_grid_live_rows: w.samples.at(-1)?.fullLiveRows ?? null,
    table_metrics: i.tableMetrics,
    violations: i.violations,
    violations_by_kind: countByKind(i.violations),
    grids_order_unchecked: i.ordersUnchecked,
    contention_503: w.contention,
    cas_attempts_per_move: casAttemptsPerMove(w),
    cas_attempts_source: w.casAttempts.source,
    // The ceilings are measured after every design ran (scenario-report.ts, withCeilings).
    ceiling_store: null,
    ceiling_ratio: null,
    raw_partition_ceiling_per_s: null,
    partition_ceiling_ratio: null,
    raw_ceiling_per_s: i.rawCeilingPerS === null ? null : round2(i.rawCeilingPerS),
    moves_per_s_vs_raw_ceiling:
      i.rawCeilingPerS === null || i.rawCeilingPerS === 0
        ? null
        : Math.round((movesPerS / i.rawCeilingPerS) * 1000) / 1000,
    samples: w.samples.map((s) => ({
      ...s,
      readMs: round2(s.readMs)!,
      fullReadMs: round2(s.fullReadMs)!,
    })),
    error_samples: w.errorSamples,
    unreadable_partitions: i.tombstones.unreadable,
    ...mixFields(i),
  };
}

export interface Comparison {
  readonly moves: { regrid: number; naive: number };
  /** naive / regrid median first-page read of the busiest grid, after the same moves, no load. */
  readonly read_latency_ratio_naive_over_regrid: number | null;
  /** The same for a read of the whole busiest grid. */
  readonly full_read_latency_ratio_naive_over_regrid: number | null;
  readonly read_p50_ratio_naive_over_regrid: number | null;
  /** final / initial quiet read of the busiest grid: how reads aged with the moves. */
  readonly read_growth: { regrid: number | null; naive: number | null };
  readonly full_read_growth: { regrid: number | null; naive: number | null };
  readonly tombstones_written: { regrid: number; naive: number };
  readonly tombstones_scanned_per_read_max: { regrid: number; naive: number };
  readonly tombstones_scanned_full_read_max: { regrid: number; naive: number };
  readonly violations: { regrid: number; naive: number };
  readonly duplicates: { regrid: number; naive: number };
}

const ratio = (a: number | null, b: number | null) =>
  a === null || b === null || b === 0 ? null : Math.round((a / b) * 100) / 100;

export function compare(regrid: DesignReport, naive: DesignReport): Comparison {
  const pair = <T>(f: (r: DesignReport) => T) => ({ regrid: f(regrid), naive: f(naive) });
  return {
    moves: pair((r) => r.moves),
    read_latency_ratio_naive_over_regrid: ratio(
      naive.final_first_page_ms,
      regrid.final_first_page_ms,
    ),
    read_p50_ratio_naive_over_regrid: ratio(naive.read_p50_ms, regrid.read_p50_ms),
    full_read_latency_ratio_naive_over_regrid: ratio(
      naive.final_full_read_ms,
      regrid.final_full_read_ms,
    ),
    read_growth: pair((r) => ratio(r.final_first_page_ms, r.initial_first_page_ms)),
    full_read_growth: pair((r) => ratio(r.final_full_read_ms, r.initial_full_read_ms)),
    tombstones_written: pair((r) => r.tombstones_written),
    tombstones_scanned_per_read_max: pair((r) => r.tombstones_scanned_per_read_max),
    tombstones_scanned_full_read_max: pair((r) => r.tombstones_scanned_full_read_max),
    violations: pair((r) => r.violations.length),
    duplicates: pair((r) => r.violations_by_kind.duplicate),
  };
}
