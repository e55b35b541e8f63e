/**
 * Load-test scenarios: which writer moves which grid. Pure (no I/O), so the rules are unit-tested.
 *
 *  - `mixed` (the default, the load tester's original workload): `concurrency` movers draw moves
 *    from one seeded stream over every profile, a share `hot` of them aimed at a few posts of
 *    profile #0.
 *  - `uncontended`: exactly one writer per profile (profiles == concurrency, 16 unless told), each
 *    moving only on its own grid, so no compare-and-set is ever lost to another writer: what is
 *    left is the write path's own cost, compared with bare conditional batches on as many
 *    partitions at the same concurrency.
 *  - `hot`: 16 writers (unless told) on ONE profile: every write contends, compared with bare
 *    conditional batches on one partition from one writer (the partition's serial floor).
 */
import { createRng, type Rng } from './rng.js';
import { nextMove, type MoveOp, type WorkloadShape } from './workload.js';

export const SCENARIOS = ['mixed', 'uncontended', 'hot'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The writers a scenario runs with when --concurrency (and --profiles) do not say. */
export const SCENARIO_WRITERS = 16;

/** What the user gave (undefined: not given). */
export interface ShapeRequest {
  readonly scenario: Scenario;
  readonly profiles?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly hot?: number | undefined;
}

export interface ResolvedShape {
  readonly profiles: number;
  readonly concurrency: number;
  readonly hot: number;
}

/** Profiles, writers and hot share of a scenario, or why the request contradicts it. */
export function resolveShape(r: ShapeRequest): ResolvedShape | { readonly error: string } {
  switch (r.scenario) {
    case 'mixed':
      return { profiles: r.profiles ?? 20, concurrency: r.concurrency ?? 8, hot: r.hot ?? 0.2 };
    case 'uncontended': {
      if (r.profiles !== undefined && r.concurrency !== undefined && r.profiles !== r.concurrency) {
        return {
          error:
            '--scenario uncontended runs one writer per profile: --profiles must equal --concurrency',
        };
      }
      if (r.hot !== undefined && r.hot > 0) {
        return { error: '--scenario uncontended has no contended posts: --hot must be 0' };
      }
      const n = r.profiles ?? r.concurrency ?? SCENARIO_WRITERS;
      return { profiles: n, concurrency: n, hot: 0 };
    }
    case 'hot':
      if (r.profiles !== undefined && r.profiles !== 1) {
        return { error: '--scenario hot moves on one profile: --profiles must be 1' };
      }
      // Moves spread over the one grid's posts unless --hot concentrates them further.
      return { profiles: 1, concurrency: r.concurrency ?? SCENARIO_WRITERS, hot: r.hot ?? 0 };
  }
}

export interface MovePlan extends WorkloadShape {
  readonly scenario: Scenario;
  readonly seed: number;
}

/**
 * The next move of writer `worker` (0-based). `mixed` and `hot` draw from one seeded stream
 * shared by all writers (the original workload: which writer gets which move depends on timing);
 * `uncontended` gives every writer a stream of its own, on its own profile (#worker).
 */
export function moveSource(plan: MovePlan): (worker: number) => MoveOp {
  if (plan.scenario !== 'uncontended') {
    const rng = createRng(plan.seed);
    return () => nextMove(rng, plan);
  }
  const oneGrid: WorkloadShape = { ...plan, profiles: 1, hot: 0 };
  const streams = new Map<number, Rng>();
  return (worker) => {
    let rng = streams.get(worker);
    if (!rng) {
      rng = createRng((plan.seed + Math.imul(worker + 1, 0x9e3779b1)) >>> 0);
      streams.set(worker, rng);
    }
    return { ...nextMove(rng, oneGrid), profile: worker % plan.profiles };
  };
}
