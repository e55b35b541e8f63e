/**
 * The undo ring in buckets (domain/undo-ring.ts), on real Cassandra: a group of moves spanning
 * several buckets keeps every move's entry (a group stops at UNDO_RING_VERSIONS writes), entries
 * outlive UNDO_RING_VERSIONS − 1 later versions, and a bucket's turn coming round drops what it
 * held, so the undo of a move that old is a 404.
 */
import { describe, expect, it } from 'vitest';
import { findUndo, UNDO_RING_VERSIONS } from '../../../src/domain/undo-ring.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { groupService, groupSizes, occupy } from './group-harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

const bounds = () => ({ now: Date.now(), ttlMs: 60_000 });

describe('undo ring buckets', () => {
  it('a group of moves across buckets keeps every entry; old buckets turn over', async () => {
    const g = groupService(f, 7900, { WRITE_GROUP_MAX_WRITES: 64 });
    const p = freshProfile(f);
    const posts = await seed(f, p, 45);
    const v0 = (await g.service.readHead(p)).version;
    const ids = posts.map(() => crypto.randomUUID());
    const line = await occupy(g.service, p);
    // 45 moves queued at once, each of a different post to the top.
    const all = posts.map((x, i) => g.service.move(p, x, null, { moveId: ids[i] }));
    await line.release(posts.length);
    const moved = await Promise.all(all);
    // The first group stops where its moves would span more versions than the ring keeps.
    expect(groupSizes(g.events)).toEqual([UNDO_RING_VERSIONS, posts.length - UNDO_RING_VERSIONS]);
    expect(await order(f, p)).toEqual([...posts].reverse());
    const ringOf = async () => (await g.service.store.readHead(p, {}, 'writer')).recentMoves ?? [];
    let ring = await ringOf();
    const versions = moved.map((m) => m.version);
    expect(new Set(versions).size).toBe(posts.length);
    const last = v0 + BigInt(posts.length);
    for (const [i, id] of ids.entries()) {
      const entry = findUndo(ring, id, bounds());
      // Everything of the last UNDO_RING_VERSIONS versions is there, with its own version.
      if (versions[i]! > last - BigInt(UNDO_RING_VERSIONS))
        expect(entry?.version).toBe(versions[i]);
      if (entry) expect(entry.postId).toBe(posts[i]);
    }
    // 40 more moves, one by one: every bucket has had its turn since the first 45.
    for (let i = 0; i < 40; i++) await g.service.move(p, posts[i % 5]!, posts[20]!);
    ring = await ringOf();
    for (const id of ids) expect(findUndo(ring, id, bounds())).toBeUndefined();
    await expect(g.service.undoMove(p, ids[44]!)).rejects.toMatchObject({
      code: 'post_not_found',
    });
  });

  it('undo of a move works after UNDO_RING_VERSIONS - 1 later versions', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    const id = crypto.randomUUID();
    await f.service.move(p, posts[0]!, null, { moveId: id });
    for (let i = 0; i < UNDO_RING_VERSIONS - 1; i++) {
      await f.service.move(p, posts[1 + (i % 4)]!, i % 2 ? null : posts[5]!);
    }
    const out = await f.service.undoMove(p, id);
    expect(out.result.exact).toBe(false); // a move back after its previous anchor
    const got = await order(f, p);
    expect(got.indexOf(posts[0]!)).toBe(got.indexOf(posts[1]!) + 1);
  });
});
