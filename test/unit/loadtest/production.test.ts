import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProductionOptions } from '../../../tools/loadtest/production/options.js';
import {
  MAX_OVERRIDES,
  popularity,
  postIdOf,
  profilePlan,
  type PopulationShape,
} from '../../../tools/loadtest/production/population.js';
import { counterOf } from '../../../tools/loadtest/production/run.js';
import { createRng } from '../../../tools/loadtest/rng.js';

const shape = (over: Partial<PopulationShape> = {}): PopulationShape => ({
  profiles: 2_000,
  celebrities: 3,
  celebrityShare: 0.1,
  zipf: 1,
  reordered: 0.05,
  seed: 1,
  ...over,
});

describe('population', () => {
  it('is the same every time, whatever the profile count (a larger run reuses a smaller one)', () => {
    for (let i = 0; i < 300; i++) {
      expect(profilePlan(shape({ profiles: 300 }), i)).toEqual(profilePlan(shape(), i));
    }
  });

  it('holds grids of tens to thousands of posts, #1 with 10,000 posts all moved', () => {
    const plans = Array.from({ length: 2_000 }, (_, i) => profilePlan(shape(), i));
    expect(plans[1]).toMatchObject({ posts: MAX_OVERRIDES, overrides: MAX_OVERRIDES });
    const rest = plans.slice(3);
    expect(Math.min(...rest.map((p) => p.posts))).toBeGreaterThanOrEqual(10);
    expect(rest.filter((p) => p.posts >= 400).length).toBeGreaterThan(20);
    expect(rest.filter((p) => p.overrides > 0).length).toBeGreaterThan(5);
    for (const p of plans) expect(p.overrides).toBeLessThanOrEqual(p.posts);
  });

  it('gives every post of every profile its own ID', () => {
    const post = fc.record({
      profile: fc.integer({ min: 0, max: 100_000 }),
      i: fc.integer({ min: 0, max: 9_999 }),
    });
    // Profiles 1,024 apart share the sequence bits: only the millisecond offset tells them apart.
    expect(postIdOf(0, 5, 40)).not.toBe(postIdOf(1024, 5, 40));
    // A profile has one size: derive it from the profile, as profilePlan does.
    const size = (profile: number) => 10_000 - (profile % 7);
    fc.assert(
      fc.property(post, post, (a, b) => {
        fc.pre(a.profile !== b.profile || a.i !== b.i);
        fc.pre(a.i < size(a.profile) && b.i < size(b.profile));
        expect(postIdOf(a.profile, a.i, size(a.profile))).not.toBe(
          postIdOf(b.profile, b.i, size(b.profile)),
        );
      }),
    );
  });

  it('skews popularity: celebrities get their share, then rank 1 beats rank 100 by about 100×', () => {
    const pick = popularity(shape());
    const rng = createRng(7);
    const counts = new Map<number, number>();
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const p = pick(rng);
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    const celebrities = [0, 1, 2].reduce((s, p) => s + (counts.get(p) ?? 0), 0);
    expect(celebrities / n).toBeGreaterThan(0.09);
    expect(celebrities / n).toBeLessThan(0.11);
    const first = counts.get(3)!;
    const hundredth = counts.get(102) ?? 0;
    expect(first / Math.max(hundredth, 1)).toBeGreaterThan(50);
    expect(first / Math.max(hundredth, 1)).toBeLessThan(200);
  });
});

describe('options', () => {
  it('defaults to 10,000 profiles and collects repeated --env pairs', () => {
    const o = parseProductionOptions([
      '--workload',
      'production',
      '--env',
      'WRITE_CARRY_MAX_ROWS=0',
      '--env',
      'COPY_MIN_OVERRIDES=0',
    ]);
    expect(o.profiles).toBe(10_000);
    expect(o.env).toEqual({ WRITE_CARRY_MAX_ROWS: '0', COPY_MIN_OVERRIDES: '0' });
  });

  it('refuses an --env without =', () => {
    expect(() => parseProductionOptions(['--workload', 'production', '--env', 'NOPE'])).toThrow(
      /KEY=VALUE/,
    );
  });
});

describe('counterOf', () => {
  it('sums the series of a counter whose labels match', () => {
    const text = [
      '# TYPE regrid_first_page_reads_total counter',
      'regrid_first_page_reads_total{result="hit"} 5',
      'regrid_first_page_reads_total{result="miss"} 3',
      'regrid_first_page_reads_total_other{result="miss"} 100',
    ].join('\n');
    expect(counterOf(text, 'regrid_first_page_reads_total', 'result="miss"')).toBe(3);
    expect(counterOf(text, 'regrid_first_page_reads_total')).toBe(8);
  });
});
