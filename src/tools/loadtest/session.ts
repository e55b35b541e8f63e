/**
 * One load-test session: each requested design runs the same seeded workload on fresh profiles
 * (regrid, then naive, then postgres; a design whose store does not answer is skipped with one
 * line), is verified and has its tombstones counted; then the raw
 * conditional-batch ceiling runs with as many batches as regrid attempted moves; then the
 * reports, the comparison, and the optional JSON file and SVG chart.
 *
 * `runDesign` is exported on its own (it leaves the design open) so integration tests can run a
 * short clean workload, inject a fault, and verify again.
 */
import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import type { Config } from '../../config.js';
import { IdGenerator, MAX_WORKER } from '../../domain/ids.js';
import { renderChart } from './chart.js';
import type { LoadtestCluster } from './cluster.js';
import { DesignUnavailable, type DesignName, type GridDesign } from './design.js';
import type { LoadtestOptions } from './options.js';
import { Progress } from './progress.js';
import { measureRawCeiling, type RawCeiling } from './raw-ceiling.js';
import { buildDesignReport, compare, type Comparison, type DesignReport } from './report.js';
import { summarizeComparison, summarizeDesign } from './report-text.js';
import { createGrids, type GridModel } from './grid-model.js';
import type { RunEvent } from './run-events.js';
import { runWorkload } from './runner.js';
import { sideBySide, summarizeSideBySide } from './side-by-side.js';
import { makeSampler, quietReads, sleep } from './sampler.js';
import { tableMetrics, type TableMetric } from './tombstones.js';
import { verifyRun } from './verify.js';

export interface SessionDeps {
  readonly config: Config;
  readonly cluster: LoadtestCluster;
  readonly makeDesign: (name: DesignName) => Promise<GridDesign>;
  readonly log: (line: string) => void;
  /** Flush + nodetool tablestats + sstablemetadata after each design (local node only). */
  readonly tableMetrics: boolean;
  /** Faults to inject during each design's run (a ring node killed and restarted). */
  readonly events?: () => RunEvent[];
}

export interface DesignRun {
  readonly design: GridDesign;
  readonly grids: GridModel[];
  readonly report: DesignReport;
}

export interface SessionResult {
  readonly runs: DesignRun[];
  readonly comparison: Comparison | null;
  readonly rawCeiling: RawCeiling | null;
  readonly json: Record<string, unknown>;
  readonly summary: string;
}

const SETTLE_MS = 2_000; // let the node finish with the setup writes before the "before" reads

// Profile IDs of a run are fresh, so its partitions hold nothing but what the run wrote. A random
// worker number in the upper half keeps two concurrent sessions apart.
const profileIds = new IdGenerator(randomInt(MAX_WORKER >> 1, MAX_WORKER));
export const freshProfileIds = (n: number): bigint[] =>
  Array.from({ length: n }, () => profileIds.next());

export async function runDesign(
  name: DesignName,
  o: LoadtestOptions,
  deps: SessionDeps,
): Promise<DesignRun> {
  const design = await deps.makeDesign(name);
  deps.log(`[${name}] creating ${o.profiles} grids × ${o.posts} posts (${design.transport})`);
  const grids = await createGrids(design, freshProfileIds(o.profiles), o.posts);
  const reads: number[] = [];
  // Warm-up (statement preparation, JIT) so the "before" reads measure the grid, not the process.
  for (const g of grids) {
    await design.readFirstPage(g.profileId, o.pageSize);
    await design.readOrder(g.profileId);
  }
  await sleep(SETTLE_MS);
  const before = await quietReads(design, grids[0]!.profileId, o.pageSize);
  deps.log(
    `[${name}] moving: ${o.stop.kind === 'moves' ? `${o.stop.count} moves` : `${o.stop.seconds} s`}, concurrency ${o.concurrency}`,
  );
  const sampler = makeSampler(design, grids, o, deps.cluster.client, reads);
  const work = await runWorkload(design, grids, o, sampler, deps.events?.() ?? []);
  const after = await quietReads(design, grids[0]!.profileId, o.pageSize);
  deps.log(`[${name}] verifying ${grids.length} grids and counting tombstones`);
  const verification = await verifyRun(design, grids, deps.cluster.client);
  let metrics: Record<string, TableMetric> | null = null;
  if (deps.tableMetrics && design.tables.length > 0) {
    try {
      metrics = await tableMetrics(deps.config, deps.cluster.keyspace, design.tables);
    } catch (err) {
      deps.log(`[${name}] table metrics unavailable: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const storeStats = await design.storeStats?.().catch((err: unknown) => {
    deps.log(`[${name}] store stats unavailable: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  });
  const built = buildDesignReport({
    design: name,
    transport: design.transport,
    plan: o,
    work,
    reads,
    quiet: { before, after },
    tombstones: verification.tombstones,
    tableMetrics: metrics,
    violations: verification.violations,
    ordersUnchecked: verification.ordersUnchecked,
    resolved: verification.resolved,
    rawCeilingPerS: null, // filled in by runSession once the ceiling is measured
  });
  const report = storeStats ? { ...built, store_stats: storeStats } : built;
  return { design, grids, report };
}

export async function runSession(o: LoadtestOptions, deps: SessionDeps): Promise<SessionResult> {
  const runs: DesignRun[] = [];
  // The machine's 1-minute load average before and after: other work on a 2-core box skews latencies.
  const loadBefore = loadavg()[0]!;
  try {
    const skipped: Array<{ design: DesignName; reason: string }> = [];
    for (const name of o.designs) {
      try {
        runs.push(await runDesign(name, o, deps));
      } catch (err) {
        // A peer whose store does not answer is skipped; the others still run.
        if (!(err instanceof DesignUnavailable)) throw err;
        deps.log(`[${name}] skipped: ${err.message}`);
        skipped.push({ design: name, reason: err.message });
      }
    }

    let rawCeiling: RawCeiling | null = null;
    if (o.rawCeiling && runs.length > 0) {
      const batches = runs[0]!.report.moves_attempted;
      deps.log(
        `[raw] ${batches} bare conditional batches on grid_overrides, concurrency ${o.concurrency}`,
      );
      const counters = { done: 0, errors: 0, casRetries: 0 };
      const progress = new Progress(counters, {
        label: '[raw]',
        total: batches,
        unit: 'batches',
        enabled: o.progress,
      }).start();
      try {
        rawCeiling = await measureRawCeiling(deps.cluster.client, deps.config, {
          batches,
          concurrency: o.concurrency,
          profileIds: freshProfileIds(Math.max(o.profiles, o.concurrency)),
          posts: o.posts,
          onBatch: () => counters.done++,
        });
      } finally {
        progress.stop();
      }
    }
    const reports = runs.map((r) => withCeiling(r.report, rawCeiling));
    const byName = (n: DesignName) => reports.find((r) => r.design === n);
    const regrid = byName('regrid');
    const naive = byName('naive');
    const comparison = regrid && naive ? compare(regrid, naive) : null;
    const table = reports.length > 1 ? sideBySide(reports) : null;

    const machine = {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      cassandra: deps.cluster.releaseVersion,
      cluster: deps.cluster.target.origin,
      keyspace: deps.cluster.keyspace,
      load_avg_1m: { before: round1(loadBefore), after: round1(loadavg()[0]!) },
    };
    const json: Record<string, unknown> =
      reports.length === 1
        ? { ...reports[0], machine }
        : {
            machine,
            comparison,
            raw_ceiling_per_s: rawCeiling?.perSecond ?? null,
            side_by_side: table,
            designs: reports,
          };
    if (skipped.length > 0) json.skipped = skipped;
    const summary = [
      `machine: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, Cassandra ${machine.cassandra} (${machine.cluster}), load ${machine.load_avg_1m.before} → ${machine.load_avg_1m.after}`,
      ...reports.map(summarizeDesign),
      ...(comparison ? [summarizeComparison(comparison)] : []),
      ...(table ? [summarizeSideBySide(table)] : []),
      ...skipped.map((s) => `== ${s.design} skipped: ${s.reason}`),
    ].join('\n');

    if (o.json) await writeFile(o.json, JSON.stringify(json, null, 2) + '\n');
    if (o.chart) {
      const title = `regrid load test: ${o.profiles} profiles × ${o.posts} posts, concurrency ${o.concurrency}, hot ${o.hot}, ${machine.cores} cores`;
      const series = reports.map((r) => ({ name: r.design, points: r.samples }));
      await writeFile(o.chart, renderChart(series, title));
    }
    return {
      runs: runs.map((r, i) => ({ ...r, report: reports[i]! })),
      comparison,
      rawCeiling,
      json,
      summary,
    };
  } finally {
    for (const r of runs) await r.design.close();
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function withCeiling(r: DesignReport, ceiling: RawCeiling | null): DesignReport {
  if (!ceiling) return r;
  return {
    ...r,
    raw_ceiling_per_s: Math.round(ceiling.perSecond * 100) / 100,
    moves_per_s_vs_raw_ceiling: Math.round((r.moves_per_s / ceiling.perSecond) * 1000) / 1000,
  };
}
