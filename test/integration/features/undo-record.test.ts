/**
 * The undo record of a move, committed in the move's own conditional batch (the undo ring): it
 * survives a crash between the commit and the response (and still allows the exact restore), it
 * finds the previous anchor of a post moved farther than the slice the planner reads, and records
 * that older releases wrote to `grid_moves` are still honoured.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCrash } from '../../../src/service/idempotency/idempotency.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { findUndo } from '../../../src/domain/undo-ring.js';
import { MovesStore } from '../../../src/store/moves-store.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

const legacyMoves = () =>
  new MovesStore(cqlOf(f.client), consistencyOf(f.config), f.config.IDEMPOTENCY_TTL_S);
// The test's own view of the ring, read from Cassandra with the head.
const ringEntry = async (p: bigint, id: string) => {
  const head = await f.service.store.readHead(p, {}, 'writer');
  return findUndo(head.recentMoves ?? [], id, { now: Date.now(), ttlMs: 60_000 });
};
const moveId = () => crypto.randomUUID();

describe('undo record', () => {
  it('is complete when the process dies between the commit and the response', async () => {
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
    const rec = await ringEntry(p, id);
    expect(rec?.version).toBe((await f.service.store.readHead(p)).version);
    expect(rec?.prevAfter).toBe(b);
    const out = await f.service.undoMove(p, id);
    expect(out.result.exact).toBe(true);
    expect(await order(f, p)).toEqual([c, b, a]);
  });

  it('finds the previous anchor of a post moved from beyond the slice the move read', async () => {
    const p = freshProfile(f);
    // 40 posts: a move of the oldest to the top reads the top 33 or so, not the bottom.
    const posts = await seed(f, p, 40);
    const [oldest, second] = posts as [bigint, bigint];
    const id = moveId();
    await f.service.move(p, oldest, null, { moveId: id });
    expect((await ringEntry(p, id))?.prevAfter).toBe(second);
    await f.service.move(p, posts[20]!, null); // not exact any more: undo moves back by anchor
    const out = await f.service.undoMove(p, id);
    expect(out.result.exact).toBe(false);
    const got = await order(f, p);
    expect(got.at(-1)).toBe(oldest);
    expect(got.at(-2)).toBe(second);
  });

  it('every move of a burst has its own entry in the ring, and an old grid_moves record still undoes', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 8);
    const ids = posts.slice(0, 5).map(() => moveId());
    await Promise.all(
      posts.slice(0, 5).map((post, i) => f.service.move(p, post, null, { moveId: ids[i] })),
    );
    const entries = await Promise.all(ids.map((id) => ringEntry(p, id)));
    const versions = entries.map((e) => e?.version);
    expect(new Set(versions).size).toBe(5); // one entry per move, each with its own version
    expect(entries.map((e) => e?.postId)).toEqual(posts.slice(0, 5));
    // A record in grid_moves (as releases before the ring wrote them) is found by undo.
    const old = moveId();
    const head = await f.service.store.readHead(p);
    const [x, y] = [posts[7]!, posts[6]!];
    await f.service.move(p, x, null);
    await legacyMoves().put(
      {
        profileId: p,
        moveId: old,
        postId: x,
        prevKey: undefined,
        prevAfter: y,
        version: head.version, // not the move's version: undo moves back by anchor
        relabelled: 0,
      },
      undefined,
    );
    const out = await f.service.undoMove(p, old);
    expect(out.result.exact).toBe(false);
    const got = await order(f, p);
    expect(got.indexOf(x)).toBe(got.indexOf(y) + 1);
    // An unknown move id is a 404, not a guess.
    await expect(f.service.undoMove(p, moveId())).rejects.toMatchObject({ code: 'post_not_found' });
  });
});
