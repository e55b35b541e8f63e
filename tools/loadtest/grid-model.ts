/**
 * The load tester's model of each grid: the posts it was seeded with, their start order and the
 * acknowledged (and unknown-outcome) moves, which is what the checker judges the final read by.
 */
import type { ExpectedGrid } from './checker.js';
import type { GridDesign } from './design.js';
import type { AckedMove } from './history.js';
import type { MixLog } from './mixed-history.js';
import type { UnknownMove } from './unknown-outcomes.js';

/** One grid's model: its posts (creation order), start order and acknowledged moves. */
export interface GridModel {
  readonly profileId: bigint;
  readonly posts: readonly bigint[];
  readonly initial: readonly bigint[];
  readonly acks: AckedMove[];
  uncertain: number;
  /** What the unknown-outcome moves asked for (resolved against the final read). */
  readonly unknown: UnknownMove[];
  /** The version right after seeding, and the final one (designs with versions only). */
  seededVersion: bigint | null;
  finalVersion: bigint | null;
  /** The mixed workload's log (--mix); absent in a moves-only run. */
  mix?: MixLog;
}

export const expectedOf = (g: GridModel): ExpectedGrid => ({
  profileId: g.profileId,
  initial: g.initial,
  acks: g.acks,
  uncertain: g.uncertain,
  unknownMoves: g.unknown,
  ...(g.seededVersion !== null && g.finalVersion !== null
    ? { versions: { seeded: g.seededVersion, final: g.finalVersion } }
    : {}),
});

/** Creates every grid, `parallel` at a time (posts of one grid are created in order). */
export async function createGrids(
  design: GridDesign,
  profileIds: readonly bigint[],
  posts: number,
  parallel = 4,
): Promise<GridModel[]> {
  const grids: GridModel[] = new Array(profileIds.length);
  let next = 0;
  const worker = async () => {
    while (next < profileIds.length) {
      const i = next++;
      const profileId = profileIds[i]!;
      const created = await design.createGrid(profileId, posts);
      // A fresh grid shows its posts newest first (no overrides yet).
      grids[i] = {
        profileId,
        posts: created,
        initial: [...created].reverse(),
        acks: [],
        uncertain: 0,
        unknown: [],
        seededVersion: (await design.headVersion?.(profileId)) ?? null,
        finalVersion: null,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, profileIds.length) }, worker));
  return grids;
}
