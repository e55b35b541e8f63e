/**
 * Seeded property tests of the key engine, for both relabel policies: after any sequence of moves
 * the grid's order equals the same moves applied to a plain array, keys strictly increase and
 * stay in (0, ceiling) (also with IDs near 2^62 and 2^63 − 1), a tiny key range ends in
 * key_space_exhausted exactly when the grid cannot fit and never in a wrong order, and a partial
 * slice either gives the whole grid's answer or asks for more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../../src/domain/errors.js';
import { MAX_ID } from '../../../../src/domain/ids.js';
import { placeMany, placeOne, type Keyed } from '../../../../src/domain/keys.js';
import { POLICIES as PLACE, type RelabelPolicy } from '../../../../bench/keys/policies.js';
import { apply, expectOrder, expectValidKeys, grid, whole } from '../../domain/keys-model.js';

const SEED = 6_2026;
const POLICIES: readonly RelabelPolicy[] = ['bounded', 'adaptive', 'doubling'];

/** A step: move the post at `from` (or a new post) into gap `to`; the clock may advance. */
const step = fc.record({
  fresh: fc.boolean(),
  from: fc.nat(),
  to: fc.nat(),
  bump: fc.bigInt({ min: 0n, max: 1n << 34n }),
});

/** Ascending distinct keys from `base`, gaps tiny (dense: relabels early) or up to 2^40. */
const keysFrom = (base: fc.Arbitrary<bigint>) =>
  fc
    .tuple(
      base,
      fc.oneof(
        fc.array(fc.bigInt({ min: 1n, max: 3n }), { maxLength: 40 }),
        fc.array(fc.bigInt({ min: 1n, max: 1n << 40n }), { maxLength: 40 }),
      ),
    )
    .map(([b, gaps]) => {
      let k = b;
      return gaps.map((g) => (k += g));
    });

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

interface Scenario {
  readonly keys: readonly bigint[];
  readonly headroom: bigint; // ceiling - highest key
  readonly steps: readonly Step[];
}

function scenario(base: fc.Arbitrary<bigint>, headroom: fc.Arbitrary<bigint>) {
  return fc.record({ keys: keysFrom(base), headroom, steps: fc.array(step, { maxLength: 60 }) });
}

/**
 * Runs the steps against the engine and a plain array. Returns how many moves were refused with
 * key_space_exhausted (each must leave the grid as it was).
 */
function play(s: Scenario, policy: RelabelPolicy, maxCeiling = MAX_ID): number {
  let entries: Keyed[] = grid(s.keys);
  const model = entries.map((e) => e.postId);
  let ceiling = (s.keys.at(-1) ?? 0n) + s.headroom;
  let nextId = 1n;
  let refused = 0;
  for (const st of s.steps) {
    ceiling = ceiling + st.bump > maxCeiling ? maxCeiling : ceiling + st.bump;
    const fresh = st.fresh || entries.length === 0;
    const from = fresh ? -1 : st.from % entries.length;
    const postId = fresh ? nextId++ : entries[from]!.postId;
    const rest = fresh ? entries : entries.filter((_, i) => i !== from);
    const to = st.to % (rest.length + 1);
    let placed;
    try {
      placed = placeOne(whole(rest, to), postId, ceiling, PLACE[policy]);
    } catch (e) {
      if (!isDomainError(e) || e.code !== 'key_space_exhausted') throw e;
      // Refused only when (0, ceiling) really has fewer integers than the grid has posts.
      expect(BigInt(rest.length + 1)).toBeGreaterThan(ceiling - 1n);
      refused++;
      continue;
    }
    entries = apply(rest, to, [postId], placed);
    if (from >= 0) model.splice(from, 1);
    model.splice(to, 0, postId);
    expectOrder(entries, model);
    expectValidKeys(entries, ceiling);
  }
  return refused;
}

describe.each(POLICIES)('key engine properties (%s)', (policy) => {
  it('keeps the order of a plain array under any moves, keys ascending in (0, ceiling)', () => {
    const base = fc.bigInt({ min: 1n, max: 1n << 42n });
    const headroom = fc.bigInt({ min: 1n, max: 1n << 44n });
    fc.assert(
      fc.property(scenario(base, headroom), (s) => {
        expect(play(s, policy)).toBe(0);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('does not overflow with IDs near 2^62', () => {
    const base = fc.bigInt({ min: (1n << 62n) - (1n << 45n), max: 1n << 62n });
    const headroom = fc.bigInt({ min: 1n, max: 1n << 40n });
    fc.assert(
      fc.property(scenario(base, headroom), (s) => {
        expect(play(s, policy)).toBe(0);
      }),
      { seed: SEED + 1, numRuns: 150 },
    );
  });

  it('does not overflow with IDs just below 2^63 - 1 (ceiling = 2^63 - 1)', () => {
    const base = fc.bigInt({ min: MAX_ID - (1n << 46n), max: MAX_ID - (1n << 45n) });
    fc.assert(
      fc.property(scenario(base, fc.constant(1n << 44n)), (s) => {
        const highest = s.keys.at(-1) ?? 0n;
        const fitted = { ...s, headroom: MAX_ID - highest }; // ceiling exactly 2^63 - 1
        expect(play(fitted, policy)).toBe(0);
      }),
      { seed: SEED + 2, numRuns: 150 },
    );
  });

  it('refuses with key_space_exhausted, never a wrong order, when the key range is tiny', () => {
    const tiny = fc
      .tuple(fc.integer({ min: 2, max: 24 }), fc.array(fc.boolean(), { maxLength: 23 }), step)
      .chain(([ceiling, used]) =>
        fc.record({
          // a valid start: distinct keys in (0, ceiling)
          keys: fc.constant(
            used.slice(0, ceiling - 1).flatMap((u, i) => (u ? [BigInt(i + 1)] : [])),
          ),
          ceiling: fc.constant(BigInt(ceiling)),
          steps: fc.array(step, { minLength: 1, maxLength: 40 }),
        }),
      );
    let refusals = 0;
    fc.assert(
      fc.property(tiny, ({ keys, ceiling, steps }) => {
        const s = { keys, headroom: ceiling - (keys.at(-1) ?? 0n), steps };
        refusals += play(s, policy, ceiling); // the ceiling never grows
      }),
      { seed: SEED + 3, numRuns: 300 },
    );
    expect(refusals).toBeGreaterThan(0); // the refusal path was exercised
  });

  it('answers a partial slice like the whole grid, or asks for more', () => {
    const arb = fc.record({
      keys: keysFrom(fc.bigInt({ min: 1n, max: 1n << 20n })),
      gap: fc.nat(),
      cut: fc.tuple(fc.nat(), fc.nat()),
      count: fc.integer({ min: 1, max: 4 }),
    });
    let needMore = 0;
    fc.assert(
      fc.property(arb, ({ keys, gap: g, cut, count }) => {
        const entries = grid(keys);
        const gap = g % (entries.length + 1);
        const from = gap - (cut[0] % (gap + 1));
        const to = gap + (cut[1] % (entries.length - gap + 1));
        const ids = Array.from({ length: count }, (_, i) => BigInt(i + 1));
        const ceiling = (keys.at(-1) ?? 0n) + (1n << 30n);
        const full = placeMany(whole(entries, gap), ids, ceiling, PLACE[policy]);
        expect(full.kind).toBe('placed');
        const partial = placeMany(
          {
            entries: entries.slice(from, to),
            gap: gap - from,
            reachesBottom: from === 0,
            reachesTop: to === entries.length,
          },
          ids,
          ceiling,
          PLACE[policy],
        );
        if (partial.kind === 'need_more') needMore++;
        else expect(partial).toEqual(full);
      }),
      { seed: SEED + 4, numRuns: 500 },
    );
    expect(needMore).toBeGreaterThan(0);
  });

  it('puts a batch into one gap in the given order', () => {
    const arb = fc.record({
      keys: keysFrom(fc.bigInt({ min: 1n, max: 1n << 20n })),
      gap: fc.nat(),
      count: fc.integer({ min: 1, max: 12 }),
    });
    fc.assert(
      fc.property(arb, ({ keys, gap: g, count }) => {
        const entries = grid(keys);
        const gap = g % (entries.length + 1);
        const ids = Array.from({ length: count }, (_, i) => BigInt(i + 1));
        const ceiling = (keys.at(-1) ?? 0n) + (1n << 30n);
        const after = apply(
          entries,
          gap,
          ids,
          placeMany(whole(entries, gap), ids, ceiling, PLACE[policy]),
        );
        const model = entries.map((e) => e.postId);
        model.splice(gap, 0, ...ids);
        expectOrder(after, model);
        expectValidKeys(after, ceiling);
      }),
      { seed: SEED + 5, numRuns: 300 },
    );
  });
});
