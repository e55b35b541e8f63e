/**
 * End-of-run verification of one design: read every grid back through the design, judge it with
 * the pure checker against the model of acknowledged moves, and count the tombstones Cassandra
 * finds in the run's partitions. Separate from the run itself so that tests can inject a fault
 * (an extra row, a deleted row, a null bind) after a clean run and verify again.
 */
import type { Client } from 'cassandra-driver';
import { checkGrid, checkTombstones, type Violation } from './checker.js';
import type { GridDesign } from './design.js';
import { expectedOf, type GridModel } from './grid-model.js';
import { checkMixedGrid } from './mixed-check.js';
import { MIXED_TABLES, tombstoneCauses, type TombstoneCauses } from './tombstone-causes.js';
import { partitionTombstones, type PartitionTombstones } from './tombstones.js';

export interface Verification {
  readonly violations: Violation[];
  /** Grids whose order could not be checked (moves with unknown outcome). */
  readonly ordersUnchecked: number;
  /** Unknown-outcome moves resolved against the final read. */
  readonly resolved: { readonly committed: number; readonly notApplied: number };
  readonly tombstones: PartitionTombstones;
  /** Mixed runs: posts left out of the order check, their place unknown to the model. */
  readonly floating: number;
  /** Mixed runs (--mix): the tombstones by cause (tombstone-causes.ts); null otherwise. */
  readonly causes: TombstoneCauses | null;
}

export async function verifyRun(
  design: GridDesign,
  grids: readonly GridModel[],
  client: Client,
  parallel = 4,
): Promise<Verification> {
  const violations: Violation[] = [];
  let ordersUnchecked = 0;
  let floating = 0;
  const resolved = { committed: 0, notApplied: 0 };
  let next = 0;
  const worker = async () => {
    while (next < grids.length) {
      const grid = grids[next++]!;
      if (design.headVersion) grid.finalVersion = await design.headVersion(grid.profileId);
      const observed = await design.readAll(grid.profileId);
      const result = grid.mix
        ? await checkMixed(design, grid, observed)
        : checkGrid(expectedOf(grid), observed);
      violations.push(...result.violations);
      if (!result.orderChecked) ordersUnchecked++;
      floating += result.floating ?? 0;
      resolved.committed += result.resolved?.committed ?? 0;
      resolved.notApplied += result.resolved?.notApplied ?? 0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, grids.length) }, worker));

  const mixed = grids.some((g) => g.mix);
  const tombstones = await partitionTombstones(
    client,
    mixed ? MIXED_TABLES : design.tables,
    grids.map((g) => g.profileId),
    parallel,
  );
  // Mixed runs delete rows legitimately: only tombstones no removal explains are violations.
  const causes = mixed ? await tombstoneCauses(client, grids, tombstones, parallel) : null;
  for (const [profileId, tables] of causes?.unexplainedPerProfile ?? tombstones.perProfile) {
    for (const [table, count] of Object.entries(tables)) {
      violations.push(...checkTombstones(profileId, table, count));
    }
  }
  // Stable order for reports and tests: by profile, then kind.
  violations.sort((a, b) =>
    a.profile === b.profile
      ? a.kind.localeCompare(b.kind)
      : BigInt(a.profile) < BigInt(b.profile)
        ? -1
        : 1,
  );
  return { violations, ordersUnchecked, resolved, tombstones, floating, causes };
}

/** The mixed workload's check: the order resource beside the paged read (mixed-check.ts). */
async function checkMixed(design: GridDesign, grid: GridModel, display: readonly bigint[]) {
  const order = await design.mixed!.readOrder(grid.profileId);
  const log = grid.mix!;
  return checkMixedGrid(
    {
      profileId: grid.profileId,
      initial: grid.initial,
      acks: log.acks,
      uncertain: log.uncertain,
      ...(grid.seededVersion !== null && grid.finalVersion !== null
        ? { versions: { seeded: grid.seededVersion, final: grid.finalVersion } }
        : {}),
    },
    { display, pins: order.pins, main: order.main },
  );
}
