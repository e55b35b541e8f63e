/**
 * The undo record of a move, written whole by the move's planner before its compare-and-set:
 * it survives a crash between the commit and the response (and still allows the exact restore),
 * and it finds the previous anchor of a post moved farther than the slice the planner reads.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCrash } from '../../../src/service/write/idempotency.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { MovesStore } from '../../../src/store/moves-store.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

// The test's own view of the undo records (the service writes them through its own store).
const undoDeps = () => ({
  moves: new MovesStore(cqlOf(f.client), consistencyOf(f.config), f.config.IDEMPOTENCY_TTL_S),
});
const moveId = () => crypto.randomUUID();

describe('undo record', () => {
  it('is complete when the process dies between the commit and the response', async () => {
    const deps = undoDeps();
    const p = freshProfile(f);
    const [a, b, c] = await seed(f, p, 3);
    const id = moveId();
    f.hooks.afterCas = () => {
      throw new SimulatedCrash('after CAS, before response');
    };
    try {
      await expect(f.service.move(p, a!, null, { moveId: id })).rejects.toThrow(SimulatedCrash);
    } finally {
      delete f.hooks.afterCas;
    }
    expect(await order(f, p)).toEqual([a, c, b]); // it did commit
    const rec = await deps.moves.get(p, id);
    expect(rec?.version).toBe((await f.service.store.readHead(p)).version);
    expect(rec?.prevAfter).toBe(b);
    const out = await f.service.undoMove(p, id);
    expect(out.result.exact).toBe(true);
    expect(await order(f, p)).toEqual([c, b, a]);
  });

  it('finds the previous anchor of a post moved from beyond the slice the move read', async () => {
    const deps = undoDeps();
    const p = freshProfile(f);
    // 40 posts: a move of the oldest to the top reads the top 33 or so, not the bottom.
    const posts = await seed(f, p, 40);
    const [oldest, second] = posts as [bigint, bigint];
    const id = moveId();
    await f.service.move(p, oldest, null, { moveId: id });
    expect((await deps.moves.get(p, id))?.prevAfter).toBe(second);
    await f.service.move(p, posts[20]!, null); // not exact any more: undo moves back by anchor
    const out = await f.service.undoMove(p, id);
    expect(out.result.exact).toBe(false);
    const got = await order(f, p);
    expect(got.at(-1)).toBe(oldest);
    expect(got.at(-2)).toBe(second);
  });
});
