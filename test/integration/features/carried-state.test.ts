/**
 * Carried state across an idle write line (service/write/carried-states.ts): a process that
 * committed a grid's state last starts its next write from that state, even after a pause, so
 * the move is its one conditional batch with no read of `grid_overrides`. When another process
 * committed meanwhile, the guess loses its compare-and-set, the write re-reads and commits on the
 * current state (nothing lost, one order for everybody), and that profile then reads first.
 */
import { describe, expect, it } from 'vitest';
import { countingService as counting, overrideReadsOf } from './counting.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

/** A service over a counting driver: the override reads and batches one write of it sends. */
function countingService(workers: number, config: Parameters<typeof counting>[2] = {}) {
  const c = counting(f, workers, config);
  const sent = async (run: () => Promise<unknown>) => {
    const all = await c.sent(run);
    return {
      overrideReads: overrideReadsOf(all).length,
      gridPostsReads: all.filter((q) => /^SELECT .* FROM grid_posts/.test(q)).length,
      batches: all.filter((q) => q === 'BATCH').length,
    };
  };
  return { service: c.service, sent };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('carried state across an idle line', () => {
  it('a move after a pause on a grid this process wrote last is its one conditional batch', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 40);
    const a = countingService(7400);
    const first = await a.sent(() => a.service.move(p, posts[5]!, null));
    expect(first.overrideReads).toBeGreaterThan(0); // A never committed this grid's state
    for (const post of [posts[12]!, posts[20]!]) {
      await pause(300);
      const next = await a.sent(() => a.service.move(p, post, posts[5]!));
      expect(next).toMatchObject({ overrideReads: 0, batches: 1 });
    }
    const want = await order(f, p, 100);
    expect(want.slice(0, 3)).toEqual([posts[5], posts[20], posts[12]]);
  });

  it('the grid_posts rows a line read answer its planners for WRITE_CARRY_MEMO_MS, then are read again', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 40);
    const a = countingService(7430, { WRITE_CARRY_MEMO_MS: 600 });
    const first = await a.sent(() => a.service.move(p, posts[5]!, null));
    expect(first.gridPostsReads).toBeGreaterThan(0);
    // Within the bound: the same neighbourhood again costs the batch alone.
    await pause(50);
    const within = await a.sent(() => a.service.move(p, posts[12]!, posts[5]!));
    expect(within).toEqual({ overrideReads: 0, gridPostsReads: 0, batches: 1 });
    // Past it: the planner reads grid_posts again (the override partition still is not read).
    await pause(700);
    const past = await a.sent(() => a.service.move(p, posts[20]!, posts[5]!));
    expect(past.gridPostsReads).toBeGreaterThan(0);
    expect(past).toMatchObject({ overrideReads: 0, batches: 1 });
    expect((await order(f, p, 100)).slice(0, 3)).toEqual([posts[5], posts[20], posts[12]]);
  });

  it('a stale guess loses its batch, re-reads and commits; that profile then reads first', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 40);
    const a = countingService(7410);
    const b = countingService(7420);
    await a.service.move(p, posts[5]!, null);
    // Another process commits: A's carried state is now one version behind.
    await b.service.move(p, posts[9]!, null);
    const stale = await a.sent(() => a.service.move(p, posts[14]!, posts[9]!));
    // The guess (no read), its lost batch, then the snapshot and the batch that applied.
    expect(stale.batches).toBe(2);
    expect(stale.overrideReads).toBeGreaterThan(0);
    // Both processes' moves are there, in the order they were made.
    expect((await order(f, p, 100)).slice(0, 3)).toEqual([posts[9], posts[14], posts[5]]);
    // A learnt that this grid is shared: after a pause it reads first instead of guessing.
    await b.service.move(p, posts[30]!, null);
    await pause(50);
    const shared = await a.sent(() => a.service.move(p, posts[31]!, posts[30]!));
    expect(shared.batches).toBe(1);
    expect(shared.overrideReads).toBeGreaterThan(0);
    const final = await order(f, p, 100);
    expect(final.slice(0, 5)).toEqual([posts[30], posts[31], posts[9], posts[14], posts[5]]);
    expect(new Set(final).size).toBe(40);
  });
});
