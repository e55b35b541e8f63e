/**
 * The writer's snapshot reads the statics and the override rows in two statements issued
 * together; the pair must still be ONE state. So must a page read's state (`readState`: the head
 * with the first override rows in one statement, the rest read on by post_id). Writers commit versions with known override sets
 * while readers take snapshots; every snapshot must show exactly the rows of its version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshProfile, openStores, type Stores } from '../cache/harness.js';

let s: Stores;
beforeAll(async () => {
  s = await openStores();
});
afterAll(async () => {
  await s.close();
});

describe('override snapshot', () => {
  it('rows and head always belong to the same version while commits land', async () => {
    const p = freshProfile(s);
    // Version v holds overrides for posts 1..v, each with key 1000 + v·10 + post (known per v).
    const keyOf = (v: bigint, post: bigint) => 1000n + v * 10n + post;
    const rounds = 40;
    let committed = 0n;
    const writer = (async () => {
      for (let v = 1n; v <= BigInt(rounds); v++) {
        const upserts = [];
        for (let post = 1n; post <= v; post++)
          upserts.push({ postId: post, sortKey: keyOf(v, post) });
        const r = await s.grid.casGrid(p, v - 1n, v, { upserts }, undefined);
        expect(r.applied).toBe(true);
        committed = v;
      }
    })();
    const seen = new Set<bigint>();
    const reader = (async () => {
      while (committed < BigInt(rounds)) {
        const snap = await s.grid.readOverrides(p);
        const v = snap.head.version;
        seen.add(v);
        const got = snap.overrides
          .map((o) => [o.postId, o.key])
          .sort((a, b) => Number(a[0]! - b[0]!));
        const want = [];
        for (let post = 1n; post <= v; post++) want.push([post, keyOf(v, post)]);
        expect(got, `snapshot at version ${v}`).toEqual(want);
      }
    })();
    await Promise.all([writer, reader]);
    expect(seen.size).toBeGreaterThan(3); // the reader really ran between commits
  });

  it("a page read's state (head with the first rows, the rest by post_id) is one version too", async () => {
    const p = freshProfile(s);
    // Version v holds overrides for posts 1..90+v: from v = 11 on more than STATE_FIRST_ROWS.
    const keyOf = (v: bigint, post: bigint) => 10_000n + v * 1000n + post;
    const postsAt = (v: bigint) => 90n + v;
    const rounds = 24;
    let committed = 0n;
    const writer = (async () => {
      for (let v = 1n; v <= BigInt(rounds); v++) {
        const upserts = [];
        for (let post = 1n; post <= postsAt(v); post++)
          upserts.push({ postId: post, sortKey: keyOf(v, post) });
        const r = await s.grid.casGrid(p, v - 1n, v, { upserts }, undefined);
        expect(r.applied).toBe(true);
        committed = v;
      }
    })();
    const seen = new Set<bigint>();
    const reader = (async () => {
      while (committed < BigInt(rounds)) {
        const snap = await s.grid.readState(p);
        const v = snap.head.version;
        seen.add(v);
        const got = snap.overrides
          .map((o) => [o.postId, o.key])
          .sort((a, b) => Number(a[0]! - b[0]!));
        const want = [];
        for (let post = 1n; v > 0n && post <= postsAt(v); post++) want.push([post, keyOf(v, post)]);
        expect(got, `state at version ${v}`).toEqual(want);
      }
    })();
    await Promise.all([writer, reader]);
    expect([...seen].some((v) => postsAt(v) > 100n)).toBe(true);
  });
});
