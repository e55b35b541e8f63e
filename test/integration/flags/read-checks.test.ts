/**
 * Shadow reads and cache sampling (service/read/read-checks.ts) with both sample rates at 1: a
 * normal read counts matches; a grid_posts row inserted behind the service's back (no version
 * bump, so the cached order of this version is now wrong) is counted as a mismatch by both, and
 * the first differing position is logged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cacheSamples, shadowReads } from '../../../src/obs/signals.js';
import { openFlagsHarness, type Opened } from './harness.js';

let h: Opened;
beforeAll(async () => {
  h = await openFlagsHarness({ SHADOW_READ_SAMPLE: '1', CACHE_SAMPLE_RATE: '1' });
});
afterAll(() => h.close());

async function counts(counter: typeof shadowReads) {
  const values = (await counter.get()).values;
  const of = (result: string) => values.find((v) => v.labels.result === result)?.value ?? 0;
  return { match: of('match'), mismatch: of('mismatch'), error: of('error') };
}

it('a normal read counts a match; a tampered grid_posts row counts a mismatch', async () => {
  const p = h.ids.next();
  for (let i = 0; i < 8; i++) await h.service.createPost(p, { caption: `p${i}` });
  const page = () => h.service.pages.page({ profileId: p, limit: 5 });
  await page(); // fills (or finds the writer's pre-filled order)
  await h.service.checks.settled();
  const shadow0 = await counts(shadowReads);
  const cache0 = await counts(cacheSamples);

  const first = await page(); // a cache hit
  await h.service.checks.settled();
  expect(await counts(shadowReads)).toEqual({ ...shadow0, match: shadow0.match + 1 });
  expect(await counts(cacheSamples)).toEqual({ ...cache0, match: cache0.match + 1 });

  // A post on grid_posts that the cached order (same version) does not know about.
  const intruder = h.ids.next();
  await h.client.execute(
    'INSERT INTO grid_posts (profile_id, post_id, author_id) VALUES (?, ?, ?)',
    [p, intruder, p],
    { prepare: true },
  );
  const served = await page();
  expect(served.entries).toEqual(first.entries); // still the cached order: the response did not wait
  await h.service.checks.settled();
  expect((await counts(shadowReads)).mismatch).toBe(shadow0.mismatch + 1);
  expect((await counts(cacheSamples)).mismatch).toBe(cache0.mismatch + 1);
  const logged = h.log.filter((l) => l.fields.profile_id === p);
  expect(logged.map((l) => l.message).sort()).toEqual([
    'cache sample mismatch',
    'shadow read mismatch',
  ]);
  for (const l of logged) expect(l.fields).toMatchObject({ position: 0, expected: intruder });
});

it('profiles with overrides are not shadow-read; cursor pages are not sampled', async () => {
  const p = h.ids.next();
  const ids: bigint[] = [];
  for (let i = 0; i < 8; i++)
    ids.push((await h.service.createPost(p, { caption: `p${i}` })).value.postId);
  await h.service.move(p, ids[0]!, null);
  await h.service.checks.settled();
  const shadow0 = await counts(shadowReads);
  const firstPage = await h.service.pages.page({ profileId: p, limit: 3 });
  await h.service.pages.page({ profileId: p, limit: 3, cursor: firstPage.nextCursor! });
  await h.service.checks.settled();
  expect(await counts(shadowReads)).toEqual(shadow0);
});
