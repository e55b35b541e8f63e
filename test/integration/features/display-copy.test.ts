/**
 * Reordered copies (store/display-copy-store.ts, service/read/copy-builder.ts) on the real
 * Cassandra: a profile with many overrides gets a copy of its state off the request path; pages
 * read from it equal the merged pages of a service without copies; a write makes reads merge
 * again until the new state's copy is built, and the superseded copy is dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf, consistencyOf } from '../../../src/store/cassandra.js';
import { DisplayCopyStore } from '../../../src/store/display-copy-store.js';
import { pageReadDuration } from '../../../src/obs/metrics.js';
import { TracingCql } from '../../../tools/loadtest/cql-trace.js';
import { freshProfile, openFeatures, seed, type Features } from './harness.js';

let f: Features;
let plain: GridService;
let copyStore: DisplayCopyStore;
beforeAll(async () => {
  f = await openFeatures({
    COPY_MIN_OVERRIDES: '20',
    COPY_DEBOUNCE_MS: '0',
    COPY_MAX_DELAY_MS: '0',
  });
  const cql = cqlOf(f.client);
  const config = { ...f.config, COPY_MIN_OVERRIDES: 0 };
  plain = new GridService({ cql, config, ids: f.ids, cursorSecret: 'feature-tests-cursor-secret' });
  copyStore = new DisplayCopyStore(cql, consistencyOf(f.config));
});
afterAll(() => f.close());

/** Every page's post IDs and the version each was read at. */
async function allPages(service: GridService, profileId: bigint, limit: number) {
  const pages: Array<{ ids: string[]; version: bigint }> = [];
  let cursor: string | undefined;
  do {
    const page = await service.pages.page({ profileId, limit, ...(cursor ? { cursor } : {}) });
    pages.push({ ids: page.entries.map((e) => String(e.postId)), version: page.version });
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

const copyReads = async () =>
  (await pageReadDuration.get()).values
    .filter((v) => v.labels.source === 'copy' && v.metricName?.endsWith('_count'))
    .reduce((n, v) => n + v.value, 0);

describe('reordered copies for profiles with many overrides', () => {
  it('are built after reads learn the profile, serve equal pages, and follow writes', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 70);
    // 40 moves: the 40 oldest posts each moved to the top (40 overrides, above the threshold).
    for (const post of posts.slice(0, 40)) await f.service.move(p, post, null);
    await f.service.setPins(p, [posts[50]!]);

    await allPages(f.service, p, 24); // merges, and learns the profile has many overrides
    await f.service.copies.settled();
    expect(f.service.copies.stats.built).toBeGreaterThan(0);
    const head = await f.service.readHead(p);
    expect(await copyStore.slice(p, head, undefined, 5)).toHaveLength(5);

    const before = await copyReads();
    for (const limit of [7, 24, 100]) {
      expect(await allPages(f.service, p, limit)).toEqual(await allPages(plain, p, limit));
    }
    expect(await copyReads()).toBeGreaterThan(before);
    const ids = (await allPages(f.service, p, 100)).flatMap((x) => x.ids);
    expect(ids).toHaveLength(70);
    expect(ids[0]).toBe(String(posts[50])); // the pin first

    // A move: the new state has no copy yet, reads merge (still equal), then it is built and
    // the superseded copy is gone.
    await f.service.move(p, posts[60]!, posts[10]!);
    expect(await allPages(f.service, p, 24)).toEqual(await allPages(plain, p, 24));
    await f.service.copies.settled();
    const next = await f.service.readHead(p);
    expect(next.version).toBe(head.version + 1n);
    expect(await copyStore.slice(p, next, undefined, 3)).toHaveLength(3);
    expect(await copyStore.slice(p, head, undefined, 3)).toBeUndefined();
    expect(await allPages(f.service, p, 24)).toEqual(await allPages(plain, p, 24));
  });

  it('a copy ends where the grid ends: a last page past every post is empty, not a merge', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 30);
    for (const post of posts.slice(0, 25)) await f.service.move(p, post, null);
    await allPages(f.service, p, 24);
    await f.service.copies.settled();
    const head = await f.service.readHead(p);
    const all = await copyStore.slice(p, head, undefined, 100);
    expect(all?.map((e) => e.postId)).toEqual(
      (await allPages(plain, p, 100)).flatMap((x) => x.ids).map(BigInt),
    );
    const last = all![all!.length - 1]!;
    expect(await copyStore.slice(p, head, last, 10)).toEqual([]);
  });

  it('the copy a page reads holds no tombstone, after builds, writes and drops (traced)', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 40);
    for (const post of posts.slice(0, 30)) await f.service.move(p, post, null);
    await allPages(f.service, p, 24);
    await f.service.copies.settled();
    for (const post of posts.slice(30, 33)) {
      await f.service.move(p, post, posts[5]!);
      await f.service.copies.settled(); // each state's copy built, the one before dropped
    }
    const head = await f.service.readHead(p);
    const tracing = new TracingCql(f.client);
    const traced = new DisplayCopyStore(tracing, consistencyOf(f.config));
    const all = await traced.slice(p, head, undefined, 100);
    expect(all).toHaveLength(40);
    const tally = await tracing.tally();
    expect(tally.liveRows).toBeGreaterThanOrEqual(40);
    expect(tally.tombstoneCells).toBe(0);
  });
});
