/**
 * The floors a session measures after its designs ran, in the same run, for the ratios in the
 * reports (scenario-report.ts):
 *  - `mixed` (the original behaviour): bare conditional batches on distinct partitions of
 *    regrid's Cassandra, as many as the first design attempted moves, at the run's concurrency;
 *    every design, PostgreSQL included, is compared with that one figure.
 *  - `uncontended`: the same distinct-partition floor (one partition per writer); a design on
 *    another store (PostgreSQL) is compared with its own store's floor (postgres-ceiling.ts).
 *  - `hot`: the single-partition floor: one writer on one partition (capped: it runs serially),
 *    again per store.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import type { CeilingRequest, DesignName, GridDesign, RawCeilingFigures } from './design.js';
import type { LoadtestOptions } from './options.js';
import { Progress } from './progress.js';
import { measurePartitionCeiling, measureRawCeiling } from './raw-ceiling.js';
import { ceilingsOf, type StoreCeilings } from './scenario-report.js';

/** One writer, one batch at a time: bounded so a long run's floor does not take as long again. */
const PARTITION_BATCHES_MAX = 5_000;

export interface CeilingDeps {
  readonly client: Client;
  readonly config: Config;
  readonly log: (line: string) => void;
  readonly freshProfileIds: (n: number) => bigint[];
}

interface RanDesign {
  readonly design: GridDesign;
  readonly report: { readonly moves_attempted: number };
}

export async function measureCeilings(
  o: LoadtestOptions,
  runs: readonly RanDesign[],
  deps: CeilingDeps,
): Promise<Map<DesignName, StoreCeilings>> {
  const out = new Map<DesignName, StoreCeilings>();
  if (!o.rawCeiling || runs.length === 0) return out;
  const want = ceilingsOf(o.scenario);
  const batches = runs[0]!.report.moves_attempted;
  const partitionBatches = Math.min(batches, PARTITION_BATCHES_MAX);
  const ownStore = (d: GridDesign) => o.scenario !== 'mixed' && d.storeCeiling !== undefined;

  const counted = async (
    label: string,
    total: number,
    f: (tick: () => void) => Promise<RawCeilingFigures>,
  ) => {
    const counters = { done: 0, errors: 0, casRetries: 0 };
    const progress = new Progress(counters, { label, total, unit: 'batches', enabled: o.progress });
    progress.start();
    try {
      return await f(() => counters.done++);
    } finally {
      progress.stop();
    }
  };

  let cassandra: StoreCeilings | null = null;
  if (runs.some((r) => !ownStore(r.design))) {
    let distinct: RawCeilingFigures | null = null;
    let partition: RawCeilingFigures | null = null;
    if (want.distinct) {
      deps.log(
        `[raw] ${batches} bare conditional batches on grid_overrides, distinct partitions, concurrency ${o.concurrency}`,
      );
      distinct = await counted('[raw]', batches, (onBatch) =>
        measureRawCeiling(deps.client, deps.config, {
          batches,
          concurrency: o.concurrency,
          profileIds: deps.freshProfileIds(Math.max(o.profiles, o.concurrency)),
          posts: o.posts,
          onBatch,
        }),
      );
    }
    if (want.partition) {
      deps.log(
        `[raw] ${partitionBatches} bare conditional batches on ONE partition from ONE writer`,
      );
      partition = await counted('[raw 1×1]', partitionBatches, (onBatch) =>
        measurePartitionCeiling(deps.client, deps.config, {
          batches: partitionBatches,
          profileId: deps.freshProfileIds(1)[0]!,
          posts: o.posts,
          onBatch,
        }),
      );
    }
    cassandra = { store: 'cassandra', distinct, partition };
  }

  for (const { design } of runs) {
    if (!ownStore(design)) {
      out.set(design.name, cassandra!);
      continue;
    }
    const floor = (partitions: CeilingRequest['partitions'], n: number, label: string) => {
      deps.log(
        `[${design.name} floor] ${n} bare version-bump transactions, ${partitions === 'one' ? 'ONE row from ONE writer' : `distinct rows, concurrency ${o.concurrency}`}`,
      );
      return counted(label, n, (onBatch) =>
        design.storeCeiling!({
          batches: n,
          concurrency: o.concurrency,
          partitions,
          posts: o.posts,
          onBatch,
        }),
      );
    };
    out.set(design.name, {
      store: 'postgres',
      distinct: want.distinct ? await floor('distinct', batches, `[${design.name} floor]`) : null,
      partition: want.partition
        ? await floor('one', partitionBatches, `[${design.name} floor 1×1]`)
        : null,
    });
  }
  return out;
}
