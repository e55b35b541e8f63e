/**
 * The 'bounded' policy's proof, checked move by move (docs/key-engine.md, "The bounded policy and
 * its proof"), and the row cap's step-by-step relabel (capped.ts):
 *  - uncapped: for every move, rows written + Φ after − Φ before <= amortizedBound(n), which is the
 *    proof's per-move inequality (so rows after t moves <= bound · t + Φ_0 at every prefix);
 *  - capped (cap 8, so most relabels take several writes): no write carries more rows than the
 *    cap, keys strictly increase after every write, the final order is the model's, and rows after
 *    every move stay <= bound · t + Φ_0.
 * Moves mix random ones with adversarial ones (into the smallest gap, same gap as the last move,
 * to the top, to the bottom) on grids dense enough that every tier of the policy runs.
 * The benchmark runs the prefix check at full size (`npm run bench:keys -- --adversary`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  amortizedBound,
  placeCapped,
  placeOne,
  potential,
  type Keyed,
} from '../../../src/domain/keys.js';
import { expectOrder, expectValidKeys, grid, whole } from './keys-model.js';

const SEED = 27_2026;
const CEILING = 1n << 61n;

type Pick = 'random' | 'smallest' | 'same' | 'top' | 'bottom';
const moveArb = fc.record({
  pick: fc.constantFrom<Pick>('random', 'smallest', 'smallest', 'same', 'same', 'top', 'bottom'),
  from: fc.nat(),
  to: fc.nat(),
});
/** n posts spaced `spacing` apart from 2^40: 2^14 packs a leaf (2^24 keys) with 1024 posts. */
const gridArb = fc.record({
  n: fc.integer({ min: 20, max: 160 }),
  spacing: fc.constantFrom(1n << 14n, 1n << 20n, 1n << 30n),
});

function chooseMove(
  entries: readonly Keyed[],
  m: { pick: Pick; from: number; to: number },
  last: number,
) {
  const n = entries.length;
  const from = m.from % n;
  let gap = m.to % (n + 1); // a gap of the full grid, between gap − 1 and gap
  if (m.pick === 'top') gap = n;
  if (m.pick === 'bottom') gap = 0;
  if (m.pick === 'same') gap = Math.min(last, n);
  if (m.pick === 'smallest') {
    let best = 1;
    for (let j = 2; j < n; j++) {
      if (entries[j]!.key - entries[j - 1]!.key < entries[best]!.key - entries[best - 1]!.key)
        best = j;
    }
    gap = best;
  }
  return { from, to: gap > from ? gap - 1 : gap };
}

const keysOf = (entries: readonly Keyed[]) => entries.map((e) => e.key);

describe('bounded policy: the amortized bound', () => {
  it('holds move by move: rows + ΔΦ <= bound(n)', () => {
    fc.assert(
      fc.property(gridArb, fc.array(moveArb, { minLength: 50, maxLength: 400 }), (g, moves) => {
        let entries = grid(
          Array.from({ length: g.n }, (_, i) => (1n << 40n) + BigInt(i) * g.spacing),
        );
        const model = entries.map((e) => e.postId);
        const bound = amortizedBound(g.n);
        let phi = potential(keysOf(entries), CEILING);
        let last = g.n >> 1;
        for (const m of moves) {
          const { from, to } = chooseMove(entries, m, last);
          const rest = entries.filter((_, i) => i !== from);
          const postId = entries[from]!.postId;
          const p = placeOne(whole(rest, to), postId, CEILING);
          if (p.kind !== 'placed') throw new Error('need_more on the whole grid');
          const next = [...rest.slice(0, to), { postId, key: 0n }, ...rest.slice(to)];
          const start = to - p.writes.findIndex((w) => w.postId === postId);
          p.writes.forEach((w, i) => (next[start + i] = w));
          entries = next;
          model.splice(model.indexOf(postId), 1);
          model.splice(to, 0, postId);
          const after = potential(keysOf(entries), CEILING);
          expect(p.writes.length + after - phi).toBeLessThanOrEqual(bound + 1e-9);
          phi = after;
          last = to + 1;
        }
        expectValidKeys(entries, CEILING);
        expectOrder(entries, model);
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('under a cap of 8 rows a write: every write fits, every state is ordered, the prefix bound holds', () => {
    const cap = 8;
    let steps = 0; // relabel steps written before a move's last write, over all runs
    fc.assert(
      fc.property(gridArb, fc.array(moveArb, { minLength: 50, maxLength: 400 }), (g, moves) => {
        let entries = grid(
          Array.from({ length: g.n }, (_, i) => (1n << 40n) + BigInt(i) * g.spacing),
        );
        const model = entries.map((e) => e.postId);
        const bound = amortizedBound(g.n);
        const phi0 = potential(keysOf(entries), CEILING);
        let rows = 0;
        let last = g.n >> 1;
        moves.forEach((m, t) => {
          const { from, to } = chooseMove(entries, m, last);
          const postId = entries[from]!.postId;
          let rest = entries.filter((_, i) => i !== from);
          for (let writes = 0; ; writes++) {
            expect(writes).toBeLessThan(10_000);
            const p = placeCapped(whole(rest, to), [postId], CEILING, cap);
            if (p.kind === 'need_more') throw new Error('need_more on the whole grid');
            expect(p.writes.length).toBeLessThanOrEqual(cap);
            rows += p.writes.length;
            const keys = new Map(p.writes.map((w) => [w.postId, w.key]));
            const base =
              p.kind === 'placed'
                ? [...rest.slice(0, to), { postId, key: 0n }, ...rest.slice(to)]
                : rest;
            const written = base.map((e) => ({
              postId: e.postId,
              key: keys.get(e.postId) ?? e.key,
            }));
            expectValidKeys(written, CEILING);
            if (p.kind === 'placed') {
              entries = written;
              break;
            }
            rest = written;
            steps++;
          }
          model.splice(model.indexOf(postId), 1);
          model.splice(to, 0, postId);
          expect(rows).toBeLessThanOrEqual(bound * (t + 1) + phi0 + 1e-9);
          last = to + 1;
        });
        expectOrder(entries, model);
      }),
      { seed: SEED, numRuns: 40 },
    );
    expect(steps).toBeGreaterThan(0); // the cap did split relabels
  });
});
