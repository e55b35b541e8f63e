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
import type { Config } from '../../src/config/config.js';
import { IdGenerator, MAX_WORKER } from '../../src/domain/ids.js';
import { renderChart } from './chart.js';
import type { LoadtestCluster } from './cluster.js';
import { DesignUnavailable, type DesignName, type GridDesign } from './design.js';
import type { LoadtestOptions } from './options.js';
import { measureCeilings } from './ceilings.js';
import { buildDesignReport, compare, type Comparison, type DesignReport } from './report.js';
import { summarizeComparison, summarizeDesign } from './report-text.js';
import { createGrids, type GridModel } from './grid-model.js';
import { withCeilings, type StoreCeilings } from './scenario-report.js';
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
  /** The floors measured for each design (ceilings.ts). */
  readonly ceilings: ReadonlyMap<DesignName, StoreCeilings>;
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
    `[${name}] moving (scenario ${o.scenario}): ${o.stop.kind === 'moves' ? `${o.stop.count} moves` : `${o.stop.seconds} s`}, concurrency ${o.concurrency}`,
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
    causes: verification.causes,
    floating: verification.floating,
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

    const ceilings = await measureCeilings(o, runs, {
      client: deps.cluster.client,
      config: deps.config,
      log: deps.log,
      freshProfileIds,
    });
    const reports = runs.map((r) => withCeilings(r.report, ceilings.get(r.design.name) ?? null));
    const cassandra = [...ceilings.values()].find((c) => c.store === 'cassandra') ?? null;
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
            scenario: o.scenario,
            // regrid's Cassandra; each design's own ceilings are in designs[].
            raw_ceiling_per_s: cassandra?.distinct?.perSecond ?? null,
            raw_partition_ceiling_per_s: cassandra?.partition?.perSecond ?? null,
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
      ceilings,
      json,
      summary,
    };
  } finally {
    for (const r of runs) await r.design.close();
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;
