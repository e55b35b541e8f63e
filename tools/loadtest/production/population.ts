/**
 * The production-shaped population: which profiles exist, how many posts and overrides each
 * grid holds, and how popular each profile is. Pure (seeded), so every run and every design
 * sees the same population, and seed.ts can tell what is already written.
 *
 * - Profile #0 … #celebrities-1 are celebrities: a share of all reads (`celebrityShare`) goes to
 *   them, many clients on one grid at once. #1 (when there are two) is the largest grid the
 *   design is for: 10,000 posts, every one moved (10,000 overrides).
 * - The other reads pick a profile by Zipf rank (exponent `zipf`; rank r has weight 1/r^s), rank
 *   r being profile #(celebrities + r - 1).
 * - Grid sizes are skewed like real accounts: 75% hold 10–40 posts, 22% 40–400, 3% 400–3,000
 *   (log-uniform inside each band); celebrities 1,000–3,000.
 * - A share `reordered` of the profiles with at least 100 posts is heavily reordered: every post
 *   moved (overrides = posts, at most 10,000), the case the design's reordered copy is for.
 */
import { composeId } from '../../../src/domain/ids.js';
import { createRng, type Rng } from '../rng.js';

export const MAX_OVERRIDES = 10_000;
/** Fixed IDs, so a second run finds what the first one seeded. */
const PROFILE_BASE = 7_300_000_000n;
/** Post IDs lie a week before this instant (fixed: reruns make the same IDs). */
const ID_T0 = Date.UTC(2026, 0, 1);
const SEED_WORKER = 8190;

export interface PopulationShape {
  readonly profiles: number;
  readonly celebrities: number;
  readonly celebrityShare: number;
  readonly zipf: number;
  readonly reordered: number;
  readonly seed: number;
}

export interface ProfilePlan {
  readonly index: number;
  readonly profileId: bigint;
  readonly posts: number;
  readonly overrides: number;
}

const logUniform = (rng: Rng, lo: number, hi: number) =>
  Math.round(Math.exp(Math.log(lo) + rng.next() * (Math.log(hi) - Math.log(lo))));

export function profilePlan(shape: PopulationShape, index: number): ProfilePlan {
  const rng = createRng(shape.seed * 1_000_003 + index);
  const profileId = PROFILE_BASE + BigInt(index);
  if (index === 1 && shape.celebrities >= 2) {
    return { index, profileId, posts: MAX_OVERRIDES, overrides: MAX_OVERRIDES };
  }
  let posts: number;
  if (index < shape.celebrities) posts = logUniform(rng, 1_000, 3_000);
  else {
    const band = rng.next();
    posts =
      band < 0.75
        ? logUniform(rng, 10, 40)
        : band < 0.97
          ? logUniform(rng, 40, 400)
          : logUniform(rng, 400, 3_000);
  }
  const heavy = posts >= 100 && rng.next() < shape.reordered;
  return { index, profileId, posts, overrides: heavy ? Math.min(posts, MAX_OVERRIDES) : 0 };
}

/** Post #i of profile #p (i = 0 the oldest): unique over profiles and posts, the same every run. */
export function postIdOf(profile: number, i: number, posts: number): bigint {
  return composeId({
    ms: ID_T0 - (posts - i) * 60_000 - Math.floor(profile / 1024),
    worker: SEED_WORKER,
    sequence: profile % 1024,
  });
}

/** Draws the profile a read goes to: a celebrity, or a Zipf rank among the rest. */
export function popularity(shape: PopulationShape): (rng: Rng) => number {
  const rest = shape.profiles - shape.celebrities;
  const cdf = new Float64Array(Math.max(rest, 0));
  let sum = 0;
  for (let r = 1; r <= rest; r++) cdf[r - 1] = sum += 1 / r ** shape.zipf;
  return (rng) => {
    if (shape.celebrities > 0 && (rest === 0 || rng.next() < shape.celebrityShare)) {
      return rng.int(shape.celebrities);
    }
    const x = rng.next() * sum;
    let lo = 0;
    let hi = rest - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return shape.celebrities + lo;
  };
}
