import { describe, expect, it } from 'vitest';
import { moveAttemptsOf } from '../../../tools/loadtest/regrid-http-design.js';
import { buildDesignReport, type ReportInputs } from '../../../tools/loadtest/report.js';
import { summarizeDesign } from '../../../tools/loadtest/report-text.js';
import {
  casAttemptsPerMove,
  ceilingsOf,
  withCeilings,
} from '../../../tools/loadtest/scenario-report.js';
import { sideBySide } from '../../../tools/loadtest/side-by-side.js';
import { LatencyRecorder } from '../../../tools/loadtest/stats.js';

const floor = (perSecond: number) => ({
  batches: 100,
  seconds: 100 / perSecond,
  perSecond,
  notApplied: 0,
  failed: 0,
});

const report = (
  scenario: ReportInputs['plan']['scenario'],
  acked: number,
  seconds: number,
  casAttempts: ReportInputs['work']['casAttempts'],
) =>
  buildDesignReport({
    design: 'regrid',
    transport: 'direct',
    plan: { scenario, profiles: 16, posts: 10, concurrency: 16, hot: 0, seed: 1 },
    work: {
      seconds,
      attempted: acked + 3,
      acked,
      errors: 3,
      rejected: 3,
      uncertain: 0,
      contention: 3,
      casAttempts,
      casRetries: 9,
      rowsWritten: acked,
      rowsKnown: acked,
      relabels: 0,
      relabelledRows: 0,
      moveLatency: new LatencyRecorder(),
      samples: [{ moves: 0, readMs: 1, tombstones: 0, fullReadMs: 1, fullTombstones: 0 }],
      errorSamples: [],
      events: [],
    },
    reads: [],
    quiet: { before: { firstPage: [1], full: [1] }, after: { firstPage: [1], full: [1] } },
    tombstones: { byTable: {}, total: 0, perProfile: new Map(), unreadable: [] },
    tableMetrics: null,
    violations: [],
    ordersUnchecked: 0,
    rawCeilingPerS: null,
  });

describe('scenario report fields', () => {
  it('counts 503 contention and conditional batches per acknowledged move', () => {
    const r = report('hot', 400, 4, { count: 1000, source: 'conditional batches sent (driver)' });
    expect(r).toMatchObject({
      scenario: 'hot',
      contention_503: 3,
      cas_attempts_per_move: 2.5,
      cas_attempts_source: 'conditional batches sent (driver)',
      ceiling_store: null,
      raw_partition_ceiling_per_s: null,
    });
    expect(casAttemptsPerMove({ acked: 0, casAttempts: { count: 5, source: '' } })).toBeNull();
    expect(
      casAttemptsPerMove({ acked: 3, casAttempts: { count: null, source: 'n/a' } }),
    ).toBeNull();
  });

  it('uncontended: ceiling_ratio = moves_per_s / raw_ceiling_per_s, from the reported figures', () => {
    const r = withCeilings(report('uncontended', 1234, 7, { count: 1234, source: 'x' }), {
      store: 'cassandra',
      distinct: floor(987.654),
      partition: null,
    });
    expect(r.moves_per_s).toBe(176.29);
    expect(r.raw_ceiling_per_s).toBe(987.65);
    expect(r.ceiling_ratio).toBe(0.178);
    expect(r.ceiling_ratio).toBeCloseTo(r.moves_per_s / r.raw_ceiling_per_s!, 3);
    expect(r.moves_per_s_vs_raw_ceiling).toBe(r.ceiling_ratio);
    expect(r.partition_ceiling_ratio).toBeNull();
    expect(r.cas_attempts_per_move).toBe(1);
    const text = summarizeDesign(r);
    expect(text).toContain('scenario uncontended');
    expect(text).toContain('987.65 conditional batches/s, distinct partitions, concurrency 16');
    expect(text).toContain('moves/s = 0.178 × ceiling');
    expect(text).not.toContain('ONE partition');
  });

  it('hot: partition_ceiling_ratio against one partition from one writer; a peer keeps its own store', () => {
    const hot = report('hot', 300, 3, { count: 300, source: 'x' });
    const r = withCeilings(hot, { store: 'cassandra', distinct: null, partition: floor(250) });
    expect(r).toMatchObject({
      raw_ceiling_per_s: null,
      ceiling_ratio: null,
      raw_partition_ceiling_per_s: 250,
      partition_ceiling_ratio: 0.4,
      ceiling_store: 'cassandra',
    });
    expect(summarizeDesign(r)).toContain(
      '250 conditional batches/s, ONE partition from ONE writer; moves/s = 0.4 × that',
    );
    const pg = withCeilings(hot, { store: 'postgres', distinct: null, partition: floor(800) });
    expect(pg.partition_ceiling_ratio).toBe(0.125);
    expect(summarizeDesign(pg)).toContain('PostgreSQL floor');
    // Nothing measured (--no-raw-ceiling): the report is unchanged.
    expect(withCeilings(hot, null)).toBe(hot);
  });

  it('measures the partition floor for `hot` and the distinct one otherwise', () => {
    expect(ceilingsOf('hot')).toEqual({ distinct: false, partition: true });
    expect(ceilingsOf('uncontended')).toEqual({ distinct: true, partition: false });
    expect(ceilingsOf('mixed')).toEqual({ distinct: true, partition: false });
  });

  it('puts the scenario fields in the side-by-side table', () => {
    const a = withCeilings(report('hot', 300, 3, { count: 330, source: 'x' }), {
      store: 'cassandra',
      distinct: null,
      partition: floor(300),
    });
    const b = withCeilings(report('hot', 600, 3, { count: null, source: 'n/a' }), {
      store: 'postgres',
      distinct: null,
      partition: floor(400),
    });
    const t = sideBySide([a, b]);
    expect(t.rows.scenario).toEqual(['hot', 'hot']);
    expect(t.rows.ceiling_store).toEqual(['cassandra', 'postgres']);
    expect(t.rows.partition_ceiling_ratio).toEqual([0.333, 0.5]);
    expect(t.rows.cas_attempts_per_move).toEqual([1.1, null]);
    expect(t.rows.contention_503).toEqual([3, 3]);
  });
});

describe("the server's CAS attempts (HTTP mode)", () => {
  it('reads the move sum of regrid_cas_attempts from the Prometheus text', () => {
    const text = [
      '# HELP regrid_cas_attempts Compare-and-set attempts per grid write',
      '# TYPE regrid_cas_attempts histogram',
      'regrid_cas_attempts_bucket{le="1",op="move"} 10',
      'regrid_cas_attempts_sum{op="create"} 4',
      'regrid_cas_attempts_sum{op="move"} 17',
      'regrid_cas_attempts_count{op="move"} 12',
    ].join('\n');
    expect(moveAttemptsOf(text)).toBe(17);
    expect(moveAttemptsOf('# TYPE regrid_cas_attempts histogram\n')).toBe(0);
    expect(moveAttemptsOf('# TYPE other_metric counter\nother_metric 1\n')).toBeNull();
  });
});
