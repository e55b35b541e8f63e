import { describe, expect, it } from 'vitest';
import { createRng } from '../../../tools/loadtest/rng.js';
import { nextMove } from '../../../tools/loadtest/workload.js';

const shape = { profiles: 5, posts: 10, hot: 0.3, hotPosts: 2, topShare: 0.25 };

describe('move workload', () => {
  it('is the same sequence for the same seed, different for another', () => {
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 50 }, () => nextMove(rng, shape));
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('stays in range, never anchors a post to itself, and aims hot moves at profile #0', () => {
    const rng = createRng(7);
    let hot = 0;
    let top = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const m = nextMove(rng, shape);
      expect(m.profile).toBeLessThan(shape.profiles);
      expect(m.post).toBeLessThan(shape.posts);
      expect(m.after).not.toBe(m.post);
      if (m.after !== null) expect(m.after).toBeLessThan(shape.posts);
      else top++;
      if (m.hot) {
        hot++;
        expect(m.profile).toBe(0);
        expect(m.post).toBeLessThan(shape.hotPosts);
      }
    }
    // Shares within a generous band of the configured values (seeded, so deterministic anyway).
    expect(Math.abs(hot / n - shape.hot)).toBeLessThan(0.02);
    expect(Math.abs(top / n - shape.topShare)).toBeLessThan(0.02);
  });
});
