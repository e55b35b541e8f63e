import { describe, expect, it } from 'vitest';
import { checkTombstones } from '../../../tools/loadtest/checker.js';
import { buildDesignReport, compare, type ReportInputs } from '../../../tools/loadtest/report.js';
import { summarizeComparison, summarizeDesign } from '../../../tools/loadtest/report-text.js';
import type { WorkloadResult } from '../../../tools/loadtest/runner.js';
import { DEFAULT_MIX } from '../../../tools/loadtest/mix.js';
import { newTallies } from '../../../tools/loadtest/mixed-step.js';
import { LatencyRecorder } from '../../../tools/loadtest/stats.js';

function work(over: Partial<WorkloadResult> = {}): WorkloadResult {
  const moveLatency = new LatencyRecorder();
  for (let i = 1; i <= 100; i++) moveLatency.record(i);
  return {
    seconds: 10,
    attempted: 100,
    acked: 98,
    errors: 2,
    rejected: 2,
    uncertain: 0,
    contention: 2,
    casAttempts: { count: 147, source: 'counted' },
    casRetries: 7,
    rowsWritten: 110,
    rowsKnown: 98,
    relabels: 3,
    relabelledRows: 12,
    moveLatency,
    samples: [
      { moves: 0, readMs: 1.234, tombstones: 0, fullReadMs: 2, fullTombstones: 0 },
      {
        moves: 100,
        readMs: 2,
        tombstones: 40,
        fullReadMs: 3,
        fullTombstones: 400,
        fullLiveRows: 50,
      },
    ],
    errorSamples: [],
    events: [],
    ...over,
  };
}

const inputs = (over: Partial<ReportInputs> = {}): ReportInputs => ({
  design: 'regrid',
  transport: 'direct',
  plan: { scenario: 'mixed', profiles: 2, posts: 10, concurrency: 4, hot: 0.2, seed: 1 },
  work: work(),
  reads: [1, 2, 3, 4, 100],
  quiet: {
    before: { firstPage: [1, 1, 1], full: [2, 2] },
    after: { firstPage: [2, 2, 3], full: [4] },
  },
  tombstones: { byTable: { grid_overrides: 0 }, total: 0, perProfile: new Map(), unreadable: [] },
  tableMetrics: null,
  violations: [],
  ordersUnchecked: 0,
  rawCeilingPerS: 40,
  ...over,
});

describe('design report', () => {
  it('derives the documented figures from the run', () => {
    const r = buildDesignReport(inputs());
    expect(r).toMatchObject({
      design: 'regrid',
      moves: 98,
      moves_per_s: 9.8,
      move_p50_ms: 50,
      move_p99_ms: 99,
      read_p50_ms: 3,
      read_p99_ms: 100,
      cas_retries: 7,
      rows_per_move: 1.12,
      relabels: 3,
      tombstones_written: 0,
      tombstones_scanned_per_read_max: 40,
      tombstones_scanned_full_read_max: 400,
      busiest_grid_live_rows: 50,
      initial_full_read_ms: 2,
      final_full_read_ms: 4,
      violations: [],
      raw_ceiling_per_s: 40,
      moves_per_s_vs_raw_ceiling: 0.245,
      initial_first_page_ms: 1,
      final_first_page_ms: 2,
    });
    expect(r.samples[0]!.readMs).toBe(1.23);
  });

  it('reports unknown figures as null, not zero', () => {
    const r = buildDesignReport(
      inputs({ rawCeilingPerS: null, reads: [], work: work({ rowsKnown: 0, casRetries: null }) }),
    );
    expect(r.raw_ceiling_per_s).toBeNull();
    expect(r.moves_per_s_vs_raw_ceiling).toBeNull();
    expect(r.read_p50_ms).toBeNull();
    expect(r.rows_per_move).toBeNull();
    expect(r.relabels).toBeNull();
    expect(summarizeDesign(r)).toContain('n/a CAS retries');
  });

  it('compares the two designs and names violations in the summary', () => {
    const regrid = buildDesignReport(inputs());
    const naive = buildDesignReport(
      inputs({
        design: 'naive',
        quiet: { before: { firstPage: [1], full: [2] }, after: { firstPage: [6], full: [20] } },
        tombstones: {
          byTable: { naive_grid: 90 },
          total: 90,
          perProfile: new Map(),
          unreadable: [],
        },
        violations: [
          {
            kind: 'duplicate',
            profile: '5',
            posts: ['9'],
            detail: 'read back more than once: 9×2',
          },
          ...checkTombstones(5n, 'naive_grid', 90),
        ],
      }),
    );
    const c = compare(regrid, naive);
    expect(c).toMatchObject({
      read_latency_ratio_naive_over_regrid: 3,
      tombstones_written: { regrid: 0, naive: 90 },
      violations: { regrid: 0, naive: 2 },
      duplicates: { regrid: 0, naive: 1 },
      read_growth: { regrid: 2, naive: 6 },
      full_read_latency_ratio_naive_over_regrid: 5,
      full_read_growth: { regrid: 2, naive: 10 },
      tombstones_scanned_full_read_max: { regrid: 400, naive: 400 },
    });
    expect(summarizeDesign(naive)).toContain('duplicate on profile 5 posts [9]');
    expect(summarizeComparison(c)).toContain('tombstones written       regrid 0  naive 90');
  });
});

describe('design report of a mixed run (--mix)', () => {
  it('reports each operation by outcome, operations/s and the tombstones by cause', () => {
    const ops = newTallies();
    Object.assign(ops.move, { attempted: 100, acked: 98, rejected: 2 });
    ops.move.codes.anchor_not_on_grid = 2;
    Object.assign(ops.batch, { attempted: 10, acked: 4, rejected: 6 });
    ops.batch.codes.precondition_failed = 6;
    Object.assign(ops.delete, { attempted: 8, acked: 8 });
    const causes = {
      byCause: {
        delete: { grid_overrides: 3, grid_posts: 8, archived_posts: 0 },
        archive: { grid_overrides: 1, grid_posts: 2, archived_posts: 2 },
      },
      unexplained: { grid_overrides: 0, grid_posts: 0, archived_posts: 0 },
      unexplainedPerProfile: new Map(),
    };
    const r = buildDesignReport(
      inputs({
        plan: { ...inputs().plan, mix: DEFAULT_MIX },
        work: work({ operations: ops }),
        causes,
        floating: 3,
      }),
    );
    expect(r).toMatchObject({
      mix: DEFAULT_MIX,
      operations_per_s: 11, // (98 + 4 + 8) / 10 s
      posts_order_uncompared: 3,
      tombstones_by_cause: causes.byCause,
      tombstones_unexplained: causes.unexplained,
    });
    expect(r.operations!.batch).toEqual({
      attempted: 10,
      acked: 4,
      rejected: 6,
      uncertain: 0,
      codes: { precondition_failed: 6 },
    });
    const text = summarizeDesign(r);
    expect(text).toMatch(
      /batch +10 sent: 4 acknowledged, 6 refused, 0 unknown \(precondition_failed 6\)/,
    );
    expect(text).toMatch(/delete: grid_overrides 3, grid_posts 8, archived_posts 0; archive: /);
    expect(text).not.toMatch(/unarchive +0 sent/);
  });

  it('adds nothing to a moves-only run', () => {
    const r = buildDesignReport(inputs());
    expect(r.operations).toBeUndefined();
    expect(summarizeDesign(r)).not.toMatch(/ mix /);
  });
});
