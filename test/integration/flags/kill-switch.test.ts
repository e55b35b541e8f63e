/**
 * The operational flags end to end (HTTP app, real Cassandra and Redis, a flags scope of this
 * file's own): reads.overrides off makes every read path chronological without writing anything,
 * and back on restores the arrangement exactly; writes.reorder off refuses reorder writes only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFlagsHarness, overridePartition, readAllHttp, type Opened } from './harness.js';

let h: Opened;
beforeAll(async () => {
  h = await openFlagsHarness();
});
afterAll(() => h.close());

const setFlag = (name: string, enabled: boolean) =>
  h.call('PUT', `/v1/admin/flags/${name}`, { admin: true, body: { enabled } });

/** A 20-post grid with two moved posts and one pin; IDs oldest first. */
async function arrangedGrid(profileId: bigint) {
  const posts: bigint[] = [];
  for (let i = 0; i < 20; i++) {
    posts.push((await h.service.createPost(profileId, { caption: `p${i}` })).value.postId);
  }
  await h.service.move(profileId, posts[0]!, null); // the oldest to the top
  await h.service.move(profileId, posts[1]!, posts[15]!); // into the middle
  await h.service.setPins(profileId, [posts[5]!]);
  const pin = posts[5]!.toString();
  const chronological = [
    pin,
    ...[...posts]
      .reverse()
      .map(String)
      .filter((id) => id !== pin),
  ];
  return { posts, chronological };
}

describe('reads.overrides (the kill switch)', () => {
  it('off: every read path is chronological, nothing is written; on: exactly as before', async () => {
    const p = h.ids.next();
    const { chronological } = await arrangedGrid(p);
    const before = await readAllHttp(h, p, 6); // fills the cache
    expect(before.ids).not.toEqual(chronological);
    expect((await readAllHttp(h, p, 6)).ids).toEqual(before.ids); // served from the cache
    const hitsBefore = h.service.caches!.grid.stats.hits;
    expect(hitsBefore).toBeGreaterThan(0);
    const partition = await overridePartition(h.client, p);
    const oldCursor = before.cursors[0]!; // issued with overrides

    expect((await setFlag('reads.overrides', false)).json).toMatchObject({
      name: 'reads.overrides',
      enabled: false,
    });
    // HTTP, first page and cursor pages, with this state's merged order still in Redis.
    expect((await readAllHttp(h, p, 6)).ids).toEqual(chronological);
    expect(h.service.caches!.grid.stats.hits).toBe(hitsBefore); // the cached order was not read
    // Cache miss (summary dropped) and the service surface itself.
    await h.service.caches!.grid.invalidate(p);
    expect((await readAllHttp(h, p, 6)).ids).toEqual(chronological);
    const page = await h.service.pages.page({ profileId: p, limit: 100 });
    expect(page.items.map((i) => i.postId.toString())).toEqual(chronological);
    // A cursor of the other mode resumes after its post's place in this order, flagged.
    const lastShown = before.ids[6]!; // pin + 6 entries on the first page
    const r = await h.call('GET', `/v1/profiles/${p}/grid?limit=50&cursor=${oldCursor}`);
    expect(r.json.grid_changed).toBe(true);
    const at = chronological.indexOf(lastShown);
    expect(r.json.items.map((i: { id: string }) => i.id)).toEqual(chronological.slice(at + 1));
    // The editor's resource is hidden along with the arrangement.
    const order = await h.call('GET', '/v1/me/grid/order', { as: p });
    expect(order.status).toBe(503);
    expect(order.json.type).toBe('https://regrid.dev/problems/feature_disabled');
    // Nothing was written to the override partition (rows, version, pins).
    expect(await overridePartition(h.client, p)).toBe(partition);

    await setFlag('reads.overrides', true);
    const after = await readAllHttp(h, p, 6);
    expect(after.ids).toEqual(before.ids);
    expect(await overridePartition(h.client, p)).toBe(partition);
    expect((await h.call('GET', '/v1/me/grid/order', { as: p })).status).toBe(200);
  });

  it('a cursor issued while off resumes by post once overrides are read again', async () => {
    const p = h.ids.next();
    const { chronological } = await arrangedGrid(p);
    const merged = (await readAllHttp(h, p, 100)).ids;
    await setFlag('reads.overrides', false);
    const first = await h.call('GET', `/v1/profiles/${p}/grid?limit=4`);
    const last = first.json.items.at(-1).id as string;
    expect(chronological.slice(0, 5)).toEqual(first.json.items.map((i: { id: string }) => i.id));
    await setFlag('reads.overrides', true);
    const next = await h.call(
      'GET',
      `/v1/profiles/${p}/grid?limit=100&cursor=${first.json.next_cursor}`,
    );
    expect(next.json.grid_changed).toBe(true);
    expect(next.json.items.map((i: { id: string }) => i.id)).toEqual(
      merged.slice(merged.indexOf(last) + 1),
    );
  });

  it('unknown flag names are problem+json 404; GET lists both flags', async () => {
    const r = await setFlag('reads.everything', false);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.json.type).toBe('https://regrid.dev/problems/flag_not_found');
    const list = await h.call('GET', '/v1/admin/flags', { admin: true });
    expect(list.json.flags.map((f: { name: string }) => f.name)).toEqual([
      'reads.overrides',
      'writes.reorder',
    ]);
    expect(list.json.refresh_bound_ms).toBeLessThanOrEqual(2000);
    expect((await h.call('GET', '/v1/admin/flags')).status).toBe(401);
  });
});

describe('writes.reorder', () => {
  it('off: moves, batch order, undo and reset are 503 feature_disabled; other writes work', async () => {
    const p = h.ids.next();
    const { posts } = await arrangedGrid(p);
    await setFlag('writes.reorder', false);
    try {
      const move = await h.call('POST', '/v1/me/grid/moves', {
        as: p,
        body: { post_id: posts[3]!.toString(), after: null },
      });
      expect(move.status).toBe(503);
      expect(move.json.type).toBe('https://regrid.dev/problems/feature_disabled');
      expect(move.headers.get('retry-after')).toBe('60');
      const reset = await h.call('POST', '/v1/me/grid/reset', { as: p });
      expect(reset.json.code).toBe('feature_disabled');
      const v0 = (await h.service.readHead(p)).version;
      const created = await h.call('POST', '/v1/me/posts', { as: p, body: { caption: 'new' } });
      expect(created.status).toBeLessThan(300);
      const pins = await h.call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [] } });
      expect(pins.status).toBe(200);
      expect((await h.service.readHead(p)).version).toBe(v0 + 2n);
    } finally {
      await setFlag('writes.reorder', true);
    }
    const move = await h.call('POST', '/v1/me/grid/moves', {
      as: p,
      body: { post_id: posts[3]!.toString(), after: null },
    });
    expect(move.status).toBe(200);
  });
});
