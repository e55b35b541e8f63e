/**
 * The page read sends the state (head + override rows) and the time-ordered rows at once
 * (service/read/read-page.ts), so the rows may be read before the state's membership effects are
 * applied, or after a later record's. These tests put a grid in the two states where the rows
 * alone cannot tell and check that every page still shows exactly the state it is labelled with:
 * a create committed whose effects are not applied yet (the writer stalled right after its
 * compare-and-set), and a grid whose rows carry no stamp (last changed before
 * cql/021_grid_posts_stamp.cql).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GridService } from '../../../src/service/grid-service.js';
import { pageRereads } from '../../../src/obs/metrics.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { freshProfile, openStores, type Stores } from '../cache/harness.js';

let s: Stores;
beforeAll(async () => {
  s = await openStores({ MOVE_RATE_LIMIT: '1000000' });
});
afterAll(async () => {
  await s.close();
});

function serviceWith(afterCas?: () => Promise<void>) {
  return new GridService({
    cql: cqlOf(s.client),
    config: s.config,
    ids: s.ids,
    cursorSecret: 'read-beside-cursor-secret-0123456789',
    ...(afterCas ? { hooks: { afterCas } } : {}),
  });
}

const ids = (page: { entries: readonly { postId: bigint }[] }) => page.entries.map((e) => e.postId);

async function rowRereads(): Promise<number> {
  const v = (await pageRereads.get()).values.find((x) => x.labels.reason === 'rows');
  return v?.value ?? 0;
}

describe('a page read beside the state shows exactly the state it is labelled with', () => {
  it('while a committed create is not applied yet (the writer stalled after its compare-and-set)', async () => {
    let stall: Promise<void> | undefined;
    let release = () => {};
    let committed = () => {};
    const atCas = new Promise<void>((r) => (committed = r));
    const service = serviceWith(async () => {
      if (!stall) return;
      committed();
      await stall;
    });
    const p = freshProfile(s);
    const before: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      before.unshift((await service.createPost(p, { caption: `seed ${i}` })).value.postId);
    }
    const seeded = await service.pages.page({ profileId: p, limit: 24 });
    expect(ids(seeded)).toEqual(before);

    stall = new Promise<void>((r) => (release = r));
    const creating = service.createPost(p, { caption: 'stalled' });
    await atCas;
    // The create's compare-and-set committed (version + 1, one more post); its grid_posts row
    // is not written yet. The page must be that state: the new post on top, count 6.
    const page = await service.pages.page({ profileId: p, limit: 24 });
    expect(page.version).toBe(seeded.version + 1n);
    expect(page.postCount).toBe(6n);
    expect(page.entries).toHaveLength(6);
    expect(ids(page).slice(1)).toEqual(before);
    expect(page.items.map((b) => b.postId)).toEqual(ids(page));
    release();
    const made = await creating;
    expect(ids(page)[0]).toBe(made.value.postId);
    const after = await service.pages.page({ profileId: p, limit: 24 });
    expect(ids(after)).toEqual(ids(page));
    expect(after.version).toBe(page.version);
  });

  it('for a grid whose rows carry no stamp: first and later pages, in order', async () => {
    const service = serviceWith();
    const p = freshProfile(s);
    const made: bigint[] = [];
    for (let i = 0; i < 7; i++) {
      made.unshift((await service.createPost(p, { caption: `post ${i}` })).value.postId);
    }
    // As a grid last changed before the stamp existed: no stamp cell, a membership record set.
    await s.client.execute('DELETE membership_version FROM grid_posts WHERE profile_id = ?', [p], {
      prepare: true,
    });
    const rereadsBefore = await rowRereads();
    const first = await service.pages.page({ profileId: p, limit: 3 });
    expect(ids(first)).toEqual(made.slice(0, 3));
    expect(first.postCount).toBe(7n);
    // No stamp to tell by: the page was read again with the state first.
    expect(await rowRereads()).toBeGreaterThan(rereadsBefore);
    const seen = [...ids(first)];
    let cursor = first.nextCursor;
    while (cursor) {
      const next = await service.pages.page({ profileId: p, limit: 3, cursor });
      expect(next.version).toBe(first.version);
      expect(next.gridChanged).toBe(false);
      seen.push(...ids(next));
      cursor = next.nextCursor;
    }
    expect(seen).toEqual(made);
  });

  it('for a grid with more overrides than ride with its head: every page, in display order', async () => {
    const service = serviceWith();
    const p = freshProfile(s);
    const made: bigint[] = [];
    for (let i = 0; i < 110; i++) {
      made.push((await service.createPost(p, { caption: `post ${i}` })).value.postId);
    }
    // Each of the 102 oldest goes to the top: 102 override rows (more than STATE_FIRST_ROWS).
    for (const postId of made.slice(0, 102)) await service.move(p, postId, null);
    const state = await service.reader.state(p);
    expect(state.rows.length).toBe(102);
    const expected = [...made.slice(0, 102).reverse(), ...made.slice(102).reverse()];
    const seen: bigint[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await service.pages.page({
        profileId: p,
        limit: 24,
        cursor: cursor ?? undefined,
      });
      expect(page.version).toBe(state.head.version);
      seen.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });
});
