/**
 * The catch-up route on the real stores (docs/http-api.md "Changes"): the changes after a
 * version, oldest first, paged by `limit`; 410 with the current version when the change log no
 * longer reaches back; 400 for bad input. A log of 8 slots here, so "too old" is quick to reach.
 */
import { describe, expect, it } from 'vitest';
import { openPerFile } from '../support/per-file.js';
import { openChanges, randomProfile, seedGrid, upTo, type ChangesHarness } from './harness.js';

let h: ChangesHarness;
openPerFile(
  () => openChanges({ CHANGE_LOG_VERSIONS: '8', WRITE_GROUP_MAX_WRITES: '8' }),
  (opened) => (h = opened),
);

async function get(path: string) {
  const res = await h.app.request(path);
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, type, body: (await res.json()) as Record<string, unknown> };
}

interface ChangeView {
  version: string;
  kind: string;
  post_ids: string[];
}

describe('GET /v1/profiles/:profile_id/grid/changes', () => {
  it('answers the changes after a version, in pages, and 410 once the log no longer has them', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 6); // v1
    for (let i = 0; i < 11; i++) await h.service.move(me, ids[i % 6]!, null); // v2..v12
    const base = `/v1/profiles/${me}/grid/changes`;

    const all = await get(`${base}?after_version=4`);
    expect(all.status).toBe(200);
    const changes = all.body.changes as ChangeView[];
    expect(changes.map((c) => Number(c.version))).toEqual(upTo(12, 5));
    expect(changes.every((c) => c.kind === 'moved' && c.post_ids.length === 1)).toBe(true);
    expect(all.body.grid_version).toBe('12');
    expect(all.body.next_after_version).toBeUndefined();

    // Pages: limit 3 from 6 → 7, 8, 9, then from 9 → 10, 11, 12 (the last page names no next).
    const first = await get(`${base}?after_version=6&limit=3`);
    expect((first.body.changes as ChangeView[]).map((c) => c.version)).toEqual(['7', '8', '9']);
    expect(first.body.next_after_version).toBe('9');
    const second = await get(`${base}?after_version=9&limit=3`);
    expect((second.body.changes as ChangeView[]).map((c) => c.version)).toEqual(['10', '11', '12']);
    expect(second.body.next_after_version).toBeUndefined();

    // Up to date, or ahead (another replica's state): nothing to tell.
    for (const n of [12, 100]) {
      const r = await get(`${base}?after_version=${n}`);
      expect(r.status).toBe(200);
      expect(r.body.changes).toEqual([]);
      expect(r.body.grid_version).toBe('12');
    }

    // Version 4 is no longer kept (8 slots hold 5..12): read the grid again.
    const gone = await get(`${base}?after_version=3`);
    expect(gone.status).toBe(410);
    expect(gone.type).toContain('application/problem+json');
    expect(gone.body.grid_version).toBe('12');
    expect(gone.body.type).toBe('https://regrid.dev/problems/history_gone');
  });

  it('a grid never written has no changes; after_version 0 of a young grid is everything', async () => {
    const none = await get(`/v1/profiles/${randomProfile()}/grid/changes?after_version=0`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ changes: [], grid_version: '0' });
    const me = randomProfile();
    await seedGrid(h, h.service, me, 2);
    const young = await get(`/v1/profiles/${me}/grid/changes?after_version=0`);
    expect((young.body.changes as ChangeView[]).map((c) => [c.version, c.kind])).toEqual([
      ['1', 'changed'],
    ]);
  });

  it('answers 400 problem+json for bad input, and changes nothing', async () => {
    const me = randomProfile();
    await seedGrid(h, h.service, me, 2);
    const base = `/v1/profiles/${me}/grid/changes`;
    for (const q of [
      '',
      '?after_version=',
      '?after_version=abc',
      '?after_version=-1',
      '?after_version=01',
      '?after_version=99999999999999999999',
      '?after_version=1&limit=0',
      '?after_version=1&limit=101',
      '?after_version=1&limit=x',
      '?after_version=1&other=1',
    ]) {
      const r = await get(`${base}${q}`);
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.type).toContain('application/problem+json');
    }
    expect((await get(`/v1/profiles/0/grid/changes?after_version=1`)).status).toBe(400);
    expect((await h.service.readHead(me)).version).toBe(1n);
  });
});
