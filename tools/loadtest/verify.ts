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
import { partitionTombstones, type PartitionTombstones } from './tombstones.js';

export interface Verification {
  readonly violations: Violation[];
  /** Grids whose order could not be checked (moves with unknown outcome). */
  readonly ordersUnchecked: number;
  /** Unknown-outcome moves resolved against the final read. */
  readonly resolved: { readonly committed: number; readonly notApplied: number };
  readonly tombstones: PartitionTombstones;
}

export async function verifyRun(
  design: GridDesign,
  grids: readonly GridModel[],
  client: Client,
  parallel = 4,
): Promise<Verification> {
  const violations: Violation[] = [];
  let ordersUnchecked = 0;
  const resolved = { committed: 0, notApplied: 0 };
  let next = 0;
  const worker = async () => {
    while (next < grids.length) {
      const grid = grids[next++]!;
      if (design.headVersion) grid.finalVersion = await design.headVersion(grid.profileId);
      const observed = await design.readAll(grid.profileId);
      const result = checkGrid(expectedOf(grid), observed);
      violations.push(...result.violations);
      if (!result.orderChecked) ordersUnchecked++;
      resolved.committed += result.resolved?.committed ?? 0;
      resolved.notApplied += result.resolved?.notApplied ?? 0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, grids.length) }, worker));

  const tombstones = await partitionTombstones(
    client,
    design.tables,
    grids.map((g) => g.profileId),
    parallel,
  );
  for (const [profileId, tables] of tombstones.perProfile) {
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
  return { violations, ordersUnchecked, resolved, tombstones };
}
