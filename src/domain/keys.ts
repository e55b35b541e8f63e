/**
 * The key engine's public face: what the rest of regrid imports from the unit in
 * src/domain/keys/ (docs/key-engine.md). Nothing in that folder imports this file, and its
 * modules import each other only downward, so the unit has no import circle:
 *
 *   keys/slice.ts             Keyed, Slice, window bounds, even keys, midpoint (imports nothing)
 *   keys/local-window.ts      the local window (tier A)            ┐ import slice.ts
 *   keys/nodes.ts             the key-space hierarchy and its bound ┘
 *   keys/relabel-bounded.ts   the relabel policy (tiers A and B)
 *   keys/place.ts             placeOne / placeMany: validation, then the policy
 *   keys/capped.ts            a relabel paid off in capped steps
 *   keys/gap.ts               slice from the entries read around a gap, ceiling, entry above
 *
 * All of it is pure: no I/O, no clock, no randomness. The reads that feed it are
 * src/service/operations/placement.ts.
 *
 * The policies the benchmarks compare it with are in bench/keys/ (policies.ts).
 *
 * Worked example (test/unit/domain/keys.test.ts runs it). Posts O, P, Q about a
 * second apart (a second is 1000 · 2^23 ≈ 2^33 ID units) with keys o, p = o + 2^33, p + 2^33:
 *   placeOne({ entries: [O, P, Q], gap: 2, reachesBottom: true, reachesTop: true }, M1, ceiling)
 *     → { kind: 'placed', writes: [{ postId: M1, key: p + 2^32 }], relabelled: 0 }
 * Putting M2, M3, … each directly above P halves the gap above P every time: M33 gets p + 1, and
 * M34 finds no integer between p and p + 1. The smallest window with room is P alone, whose gap
 * down to O is 2^33 wide: P moves down to p + 1 − 2^24 and M34 goes 2^23 above it (2 rows), which
 * leaves 2^23 on either side of M34 for the next 23 moves into that gap.
 */
export { keyBetween, type Keyed, type Slice } from './keys/slice.js';
export { placeMany, placeOne, type Placement } from './keys/place.js';
export {
  ceilingAbove,
  entryAboveIn,
  placeInSlice,
  SKEW_HEADROOM,
  sliceAround,
} from './keys/gap.js';
export { placeCapped, DEFAULT_ROW_CAP } from './keys/capped.js';
export { amortizedBound, potential } from './keys/nodes.js';
