/**
 * Home regions on the write line (docs/regions.md "Home regions"). With REGRID_HOME_REGIONS on,
 * every planner runs behind `homeGate`: the home region is a static of the override partition,
 * read with the version in the snapshot the compare-and-set is conditioned on, so the check is
 * decided inside the compare-and-set:
 *   - home is another region → the write is refused (`wrong_region`, naming it) before its
 *     planner runs: nothing is written, the batch's other writes go on;
 *   - no home yet → the write commits as usual and claims the grid for this region
 *     (`home_region` in the same batch, whose Paxos then runs at REGRID_REHOME_SERIAL:
 *     store/grid-store.ts `casGrid`);
 *   - home is this region → the planner's decision, untouched.
 * A re-home (`rehomePlanner`) bumps the version like any write, so a write planned on the old
 * home loses its compare-and-set and is planned again on the new one (and refused there).
 */
import type { RegionPolicy } from '../../config/regions.js';
import { DomainError } from '../../domain/errors.js';
import { rehomes, writesMisdirected } from '../../obs/region-metrics.js';
import type { GridPlanner, PlanDecision } from './types.js';

/** The refusal of a write whose grid is homed in `home` (HTTP 421, http/problem.ts). */
export const wrongRegion = (home: string, here: string): DomainError =>
  new DomainError(
    'wrong_region',
    `this grid's writes are serialized in region ${home}, this is ${here}; nothing was applied`,
    { home_region: home, region: here },
  );

/** `planner` behind the home check of `policy` (see the header). */
export function homeGate<R>(planner: GridPlanner<R>, policy: RegionPolicy): GridPlanner<R> {
  return async (ctx) => {
    const home = ctx.snapshot.head.homeRegion;
    if (home !== undefined && home !== policy.region) {
      writesMisdirected.inc({ home_region: home });
      throw wrongRegion(home, policy.region);
    }
    const decision = await planner(ctx);
    if (home !== undefined || decision.kind !== 'write') return decision;
    const statics = { ...decision.mutation.statics, homeRegion: policy.region };
    return { ...decision, mutation: { ...decision.mutation, statics } };
  };
}

export type RehomeWhy = 'set' | 'failover';

export interface RehomeResult {
  readonly profileId: bigint;
  /** The home before (undefined = none). */
  readonly from: string | undefined;
  readonly to: string;
  /** False when the grid was already homed there (nothing written). */
  readonly changed: boolean;
}

/**
 * Sets the grid's home to `to` in its own compare-and-set (one version). `onlyFrom`: only if the
 * home read in the snapshot is that region (the failover's condition: a grid re-homed meanwhile
 * is left alone). Runs outside `homeGate` (WriteOptions.anyRegion): a re-home may be written
 * from any region.
 */
export function rehomePlanner(
  profileId: bigint,
  to: string,
  why: RehomeWhy,
  onlyFrom?: string,
): GridPlanner<RehomeResult> {
  if (to === '') throw new DomainError('invalid_request', 'a region name must not be empty');
  return async (ctx): Promise<PlanDecision<RehomeResult>> => {
    const from = ctx.snapshot.head.homeRegion;
    const skip = from === to || (onlyFrom !== undefined && from !== onlyFrom);
    if (skip) return { kind: 'skip', result: { profileId, from, to, changed: false } };
    const result = { profileId, from, to, changed: true };
    return { kind: 'write', mutation: { statics: { homeRegion: to } }, result };
  };
}

/** Counts a committed home change (the write line's outcome says whether it committed). */
export const countRehome = (why: RehomeWhy | 'claimed'): void => rehomes.inc({ why });
