/**
 * What the load tester reads while and around a run, always on the busiest grid (#0, where all
 * hot moves land): the chart's samples (movers paused, so each point is the grid after exactly N
 * moves), first pages under load for the read percentiles, and the quiet reads before the first
 * move and after the last.
 */
import type { Client } from 'cassandra-driver';
import type { GridDesign } from './design.js';
import type { LoadtestOptions } from './options.js';
import type { QuietReads } from './report.js';
import { createRng } from './rng.js';
import type { GridModel } from './grid-model.js';
import type { Sampler } from './runner.js';
import { median } from './stats.js';
import { tracePartition } from './tombstones.js';

const QUIET_READS = 21; // reads of the busiest grid before/after the run, nothing else running
const QUIET_SPACING_MS = 25;
const UNDER_LOAD_READS = 3; // pairs (busiest + another grid) per sample, movers running

/**
 * Samples the busiest grid (#0: all hot moves land there). Under load: first pages of it and of a
 * few other grids, for the read percentiles. Quiet (movers paused): its first page (median of three,
 * plus one traced read) and its whole order (median of three; tombstones from a traced read of its
 * partitions, which is what reading the whole grid scans) — the chart's points.
 */
export function makeSampler(
  design: GridDesign,
  grids: readonly GridModel[],
  o: LoadtestOptions,
  client: Client,
  reads: number[],
): Sampler {
  const rng = createRng(o.seed ^ 0x5eed);
  const busiest = grids[0]!.profileId;
  const firstPage = (profileId: bigint) =>
    timeMs(() => design.readFirstPage(profileId, o.pageSize));
  return {
    async underLoad() {
      for (let i = 0; i < UNDER_LOAD_READS; i++) {
        const other = grids.length > 1 ? grids[1 + rng.int(grids.length - 1)]!.profileId : busiest;
        reads.push(await firstPage(busiest), await firstPage(other));
      }
    },
    async quiet(moves) {
      const page = [await firstPage(busiest), await firstPage(busiest), await firstPage(busiest)];
      const traced = await design.traceFirstPage(busiest, o.pageSize);
      const whole: number[] = [];
      for (let i = 0; i < 3; i++) whole.push(await timeMs(() => design.readOrder(busiest)));
      let fullTombstones = 0;
      let fullLiveRows = 0;
      // A design outside Cassandra counts its own rows (it has no partitions to trace).
      const traces = design.traceWhole ? [() => design.traceWhole!(busiest)] : [];
      for (const table of design.tables) traces.push(() => tracePartition(client, table, busiest));
      for (const read of traces) {
        const tally = await read();
        fullTombstones += tally.tombstoneCells;
        fullLiveRows += tally.liveRows;
      }
      return {
        moves,
        readMs: median(page)!,
        tombstones: traced.tombstoneCells,
        fullReadMs: median(whole)!,
        fullTombstones,
        fullLiveRows,
      };
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Reads of the busiest grid with nothing else running (before and after the workload). */
export async function quietReads(
  design: GridDesign,
  profileId: bigint,
  limit: number,
): Promise<QuietReads> {
  const firstPage: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < QUIET_READS; i++) {
    firstPage.push(await timeMs(() => design.readFirstPage(profileId, limit)));
    full.push(await timeMs(() => design.readOrder(profileId)));
    // Spread over ~half a second so one GC pause or compaction burst cannot own the median.
    await sleep(QUIET_SPACING_MS);
  }
  return { firstPage, full };
}
