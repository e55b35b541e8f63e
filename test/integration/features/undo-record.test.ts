/**
 * The undo record of a move, built whole by the move's planner and sent with its compare-and-set:
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

  it('a write sent with the CAS that failed is sent once more when the CAS won, not when it lost', async () => {
    const p = freshProfile(f);
    await seed(f, p, 2);
    let sends = 0;
    const flaky = async () => {
      sends += 1;
      if (sends === 1) throw new Error('replica timeout (injected)');
    };
    const out = await f.service.writer.writeGrid(p, async () => ({
      kind: 'write',
      mutation: { upserts: [] },
      result: null,
      alongside: flaky,
    }));
    expect(out.committed).toBe(true);
    expect(sends).toBe(2);

    // A CAS that loses (the version moved under the planner) never resends: the next attempt
    // plans and sends its own.
    let lostSends = 0;
    let attempts = 0;
    await f.service.writer.writeGrid(p, async (ctx) => {
      attempts += 1;
      // Another process commits first: this attempt's CAS is lost.
      const v = ctx.snapshot.head.version;
      if (attempts === 1) await f.service.store.casGrid(p, v, v + 1n, { upserts: [] });
      return {
        kind: 'write',
        mutation: { upserts: [] },
        result: ctx.attempt,
        alongside: async () => {
          lostSends += 1;
          throw new Error('fails every time');
        },
      };
    });
    expect(attempts).toBe(2);
    expect(lostSends).toBe(3); // attempt 1 (lost: not resent), attempt 2 (won) + its one resend
  });
});
