import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../tools/loadtest/options.js';
import { createRng } from '../../../tools/loadtest/rng.js';
import { moveSource, resolveShape } from '../../../tools/loadtest/scenario.js';
import { nextMove } from '../../../tools/loadtest/workload.js';

const shapeOf = (argv: string[]) => {
  const o = parseOptions(argv);
  return { scenario: o.scenario, profiles: o.profiles, concurrency: o.concurrency, hot: o.hot };
};

describe('scenario options', () => {
  it('keeps the original workload as `mixed` when no scenario is given', () => {
    expect(shapeOf([])).toEqual({ scenario: 'mixed', profiles: 20, concurrency: 8, hot: 0.2 });
    expect(shapeOf(['--profiles', '3', '--concurrency', '5', '--hot', '0'])).toEqual({
      scenario: 'mixed',
      profiles: 3,
      concurrency: 5,
      hot: 0,
    });
  });

  it('uncontended: one writer per profile, 16 unless either flag says otherwise', () => {
    const u = ['--scenario', 'uncontended'];
    expect(shapeOf(u)).toMatchObject({ profiles: 16, concurrency: 16, hot: 0 });
    expect(shapeOf([...u, '--concurrency', '4'])).toMatchObject({ profiles: 4, concurrency: 4 });
    expect(shapeOf([...u, '--profiles', '6'])).toMatchObject({ profiles: 6, concurrency: 6 });
    expect(shapeOf([...u, '--profiles', '6', '--concurrency', '6'])).toMatchObject({
      profiles: 6,
    });
    expect(() => parseOptions([...u, '--profiles', '6', '--concurrency', '5'])).toThrow(
      /--profiles must equal --concurrency/,
    );
    expect(() => parseOptions([...u, '--hot', '0.1'])).toThrow(/--hot must be 0/);
  });

  it('hot: 16 writers on one profile; --profiles other than 1 is refused', () => {
    const h = ['--scenario', 'hot'];
    expect(shapeOf(h)).toEqual({ scenario: 'hot', profiles: 1, concurrency: 16, hot: 0 });
    expect(shapeOf([...h, '--concurrency', '32', '--hot', '0.5'])).toMatchObject({
      profiles: 1,
      concurrency: 32,
      hot: 0.5,
    });
    expect(() => parseOptions([...h, '--profiles', '2'])).toThrow(/--profiles must be 1/);
    expect(() => parseOptions(['--scenario', 'contended'])).toThrow(/scenario/);
  });

  it('resolves a shape or an error for any request (never both, never neither)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('mixed', 'uncontended', 'hot' as const),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        (scenario, profiles, concurrency) => {
          const r = resolveShape({ scenario, profiles, concurrency });
          if ('error' in r) return;
          if (scenario === 'uncontended') expect(r.profiles).toBe(r.concurrency);
          if (scenario === 'hot') expect(r.profiles).toBe(1);
          if (profiles !== undefined) expect(r.profiles).toBe(profiles);
          if (concurrency !== undefined) expect(r.concurrency).toBe(concurrency);
        },
      ),
    );
  });
});

describe('scenario move sources', () => {
  const plan = { posts: 12, hot: 0, hotPosts: 2, topShare: 0.25, seed: 3 };

  it('mixed and hot draw from the one seeded stream of the original workload', () => {
    const shape = { ...plan, scenario: 'mixed' as const, profiles: 5, hot: 0.3 };
    const next = moveSource(shape);
    const rng = createRng(plan.seed);
    for (let i = 0; i < 200; i++) expect(next(i % 4)).toEqual(nextMove(rng, shape));
    const hot = moveSource({ ...plan, scenario: 'hot', profiles: 1 });
    for (let w = 0; w < 50; w++) expect(hot(w % 16).profile).toBe(0);
  });

  it('uncontended: each writer moves only on its own profile, on a stream of its own', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 300 }),
        (writers, calls) => {
          const shape = { ...plan, scenario: 'uncontended' as const, profiles: writers };
          const next = moveSource(shape);
          const seen = new Map<number, unknown[]>();
          for (const c of calls) {
            const w = c % writers;
            const m = next(w);
            expect(m.profile).toBe(w);
            expect(m.hot).toBe(false);
            expect(m.after).not.toBe(m.post);
            seen.set(w, [...(seen.get(w) ?? []), m]);
          }
          // A writer's moves do not depend on how the others' calls interleave with it.
          const alone = moveSource(shape);
          for (const [w, moves] of seen) {
            expect(moves.map(() => alone(w))).toEqual(moves);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
