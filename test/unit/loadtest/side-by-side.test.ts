import { describe, expect, it } from 'vitest';
import { buildDesignReport, type ReportInputs } from '../../../tools/loadtest/report.js';
import { sideBySide, summarizeSideBySide } from '../../../tools/loadtest/side-by-side.js';
import { LatencyRecorder } from '../../../tools/loadtest/stats.js';

const report = (design: ReportInputs['design'], acked: number, firstPageMs: number) =>
  buildDesignReport({
    design,
    transport: 'direct',
    plan: { scenario: 'mixed', profiles: 2, posts: 10, concurrency: 4, hot: 0.2, seed: 1 },
    work: {
      seconds: 10,
      attempted: 100,
      acked,
      errors: 100 - acked,
      rejected: 100 - acked,
      uncertain: 0,
      contention: 0,
      casAttempts: { count: null, source: 'n/a' },
      casRetries: design === 'regrid' ? 3 : null,
      rowsWritten: acked * 2,
      rowsKnown: acked,
      relabels: 0,
      relabelledRows: 0,
      moveLatency: new LatencyRecorder(),
      samples: [{ moves: 100, readMs: 1, tombstones: 0, fullReadMs: 1, fullTombstones: 0 }],
      errorSamples: [],
      events: [],
    },
    reads: [],
    quiet: {
      before: { firstPage: [1], full: [2] },
      after: { firstPage: [firstPageMs], full: [3] },
    },
    tombstones: { byTable: {}, total: 0, perProfile: new Map(), unreadable: [] },
    tableMetrics: null,
    violations: [],
    ordersUnchecked: 0,
    rawCeilingPerS: null,
  });

describe('side-by-side table', () => {
  it('puts every design in a column, with ratios against the first one', () => {
    const t = sideBySide([
      report('regrid', 50, 2),
      report('naive', 100, 6),
      report('postgres', 25, 1),
    ]);
    expect(t.designs).toEqual(['regrid', 'naive', 'postgres']);
    expect(t.rows.moves_per_s).toEqual([5, 10, 2.5]);
    expect(t.rows.moves_per_s_vs_first).toEqual([1, 2, 0.5]);
    expect(t.rows.first_page_vs_first).toEqual([1, 3, 0.5]);
    expect(t.rows.first_page_ms_quiet).toEqual(['1 → 2', '1 → 6', '1 → 1']);
    expect(t.rows.cas_retries).toEqual([3, null, null]);
  });

  it('prints aligned columns and n/a for unknown figures', () => {
    const text = summarizeSideBySide(
      sideBySide([report('regrid', 50, 2), report('postgres', 25, 1)]),
    );
    const lines = text.split('\n');
    expect(lines[0]).toContain('ratios are × regrid');
    expect(lines[1]).toMatch(/regrid\s+postgres$/);
    expect(lines.find((l) => l.includes('cas_retries'))).toMatch(/cas_retries\s+3\s+n\/a$/);
    expect(new Set(lines.slice(1).map((l) => l.length)).size).toBe(1);
  });
});
