/**
 * Tombstones of a mixed run (--mix) by cause, from Cassandra's own counts. Deletes and archives
 * legitimately delete rows (docs/architecture.md, "Tombstone policy": the post's `grid_posts`
 * row, its override row if it had one, its archive record on unarchive or delete), so a mixed
 * run's partitions hold tombstones; what must hold is that every one of them sits on a row of a
 * post the run deleted or archived, i.e. that moves, creates, pins and batch orders wrote none.
 *
 * For each such post, a traced point read of its row in each table counts the tombstones there,
 * attributed to the post's last removal (`delete`, or `archive` for a post archived and maybe
 * unarchived since). `unexplained` = the traced full-partition count (tombstones.ts) minus what
 * those point reads found: tombstones on rows no removal explains. A delete or archive answered
 * "outcome unknown" (a 503 that may have applied) counts as a removal of its post; one answered
 * "not applied" does not, so a removal that applied after saying so stays unexplained. `archived_by_time` is keyed
 * by archive sequence, not by post, so its count (unarchives and deletes of archived posts drop
 * its rows) is reported by table only.
 */
import type { Client } from 'cassandra-driver';
import { executeTraced } from './cql-trace.js';
import type { GridModel } from './grid-model.js';
import type { PartitionTombstones } from './tombstones.js';

/** The tables a mixed run's tombstones are counted in (its grid and archive partitions). */
export const MIXED_TABLES = ['grid_overrides', 'grid_posts', 'archived_posts', 'archived_by_time'];
/** Those whose rows are keyed by post (point-readable), and so attributable. */
export const POST_KEYED = ['grid_overrides', 'grid_posts', 'archived_posts'] as const;

export type Cause = 'delete' | 'archive';

export interface TombstoneCauses {
  /** cause → table → tombstones on rows of posts removed that way. */
  readonly byCause: Readonly<Record<Cause, Record<string, number>>>;
  /** table → tombstones in the run's partitions on rows no removal explains (must be 0). */
  readonly unexplained: Readonly<Record<string, number>>;
  /** profile → table → unexplained tombstones, only where there are any. */
  readonly unexplainedPerProfile: ReadonlyMap<bigint, Readonly<Record<string, number>>>;
}

/** Each removed post of a grid with the cause of its last removal. */
export function removedPosts(grid: GridModel): Map<bigint, Cause> {
  const out = new Map<bigint, Cause>();
  // A removal answered "outcome unknown" may have applied: its rows' tombstones are its own.
  for (const [postId, kind] of grid.mix?.maybeRemoved ?? []) out.set(postId, kind);
  for (const a of grid.mix?.acks ?? []) {
    if (a.kind === 'delete') out.set(a.postId, 'delete');
    else if (a.kind === 'archive' && out.get(a.postId) !== 'delete') out.set(a.postId, 'archive');
  }
  return out;
}

export async function tombstoneCauses(
  client: Client,
  grids: readonly GridModel[],
  measured: PartitionTombstones,
  parallel = 4,
): Promise<TombstoneCauses> {
  const byCause: Record<Cause, Record<string, number>> = { delete: {}, archive: {} };
  for (const c of ['delete', 'archive'] as const) for (const t of POST_KEYED) byCause[c][t] = 0;
  const perProfile = new Map<bigint, Record<string, number>>();
  const jobs = grids.flatMap((g) =>
    [...removedPosts(g)].flatMap(([postId, cause]) =>
      POST_KEYED.map((table) => ({ profileId: g.profileId, postId, cause, table })),
    ),
  );
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const j = jobs[next++]!;
      const { tally } = await executeTraced(
        client,
        `SELECT * FROM ${j.table} WHERE profile_id = ? AND post_id = ?`,
        [j.profileId, j.postId],
        { isIdempotent: true },
      );
      byCause[j.cause][j.table]! += tally.tombstoneCells;
      const row = perProfile.get(j.profileId) ?? {};
      row[j.table] = (row[j.table] ?? 0) + tally.tombstoneCells;
      perProfile.set(j.profileId, row);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));

  const unexplained: Record<string, number> = {};
  const unexplainedPerProfile = new Map<bigint, Record<string, number>>();
  for (const table of POST_KEYED) {
    const attributed = byCause.delete[table]! + byCause.archive[table]!;
    unexplained[table] = Math.max(0, (measured.byTable[table] ?? 0) - attributed);
  }
  for (const [profileId, tables] of measured.perProfile) {
    const row: Record<string, number> = {};
    for (const table of POST_KEYED) {
      const extra = (tables[table] ?? 0) - (perProfile.get(profileId)?.[table] ?? 0);
      if (extra > 0) row[table] = extra;
    }
    if (Object.keys(row).length > 0) unexplainedPerProfile.set(profileId, row);
  }
  return { byCause, unexplained, unexplainedPerProfile };
}
