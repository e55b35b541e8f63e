/**
 * Final is final (issue 31): a post that was taken down or deleted by its owner never comes back
 * under its ID, over HTTP on the real service and Cassandra.
 *   - PUT → takedown → the same PUT again: 410 `post_removed` (reason `taken_down`), the post
 *     404 and not on the grid, post_count unchanged;
 *   - PUT → the owner's DELETE → the same PUT again: 410 (reason `deleted`), likewise;
 *   - an import of 3 lines → one deleted, one taken down → the same import again: 0 imported,
 *     2 removed, both still gone.
 * The races of the same pairs are in write-races.test.ts.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composeId } from '../../../src/domain/ids.js';
import { runImport } from '../../../src/service/import/run-import.js';
import { ndjsonSource } from '../../../src/service/import/sources.js';
import { freshProfile, httpApi, openFeatures, type Call, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
let call: Call;
openPerFile(openFeatures, (opened) => {
  f = opened;
  call = httpApi(f).call;
});

const SVC = 'post-service';
/** A platform ID at `ms` (its own worker numbers, far from the test's generator). */
let seq = 0;
const platformId = (ms: number) =>
  composeId({ ms, worker: 7900 + (seq % 50), sequence: seq++ % 1024 });
const put = (profile: bigint, id: bigint, body: unknown = {}) =>
  call('PUT', `/v1/profiles/${profile}/posts/${id}`, { service: SVC, body });
const page = (profile: bigint) => call('GET', `/v1/profiles/${profile}/grid?limit=50`);
const gridIds = async (profile: bigint) =>
  ((await page(profile)).json.items as Array<{ id: string }>).map((i) => i.id);

/** The post is gone for good: 404, on no grid, and the same PUT again is 410 with `reason`. */
async function expectGone(profile: bigint, id: bigint, body: unknown, reason: string) {
  const again = await put(profile, id, body);
  expect([again.status, again.json.code, again.json.reason]).toEqual([410, 'post_removed', reason]);
  expect(again.headers.get('content-type')).toBe('application/problem+json');
  expect((await call('GET', `/v1/posts/${id}`)).status).toBe(404);
  expect(await gridIds(profile)).not.toContain(id.toString());
}

describe('a removed post never comes back', () => {
  it('PUT → takedown → the same PUT: 410 taken_down, still gone', async () => {
    const p = freshProfile(f);
    const id = platformId(Date.now() - 60_000);
    const body = { caption: 'to be taken down', media_url: 'https://cdn.example/t.jpg' };
    expect((await put(p, id, body)).status).toBe(201);
    const down = await call('POST', `/v1/admin/posts/${id}/takedown`, { admin: true });
    expect(down.status).toBe(200);
    const version = (await page(p)).json.grid_version as string;
    await expectGone(p, id, body, 'taken_down');
    await expectGone(p, id, body, 'taken_down'); // every retry, not just the first
    const after = await page(p);
    expect([after.json.grid_version, after.json.post_count]).toEqual([version, '0']);
  });

  it("PUT → the owner's DELETE → the same PUT: 410 deleted, still gone", async () => {
    const p = freshProfile(f);
    const kept = platformId(Date.now() - 120_000);
    const id = platformId(Date.now() - 60_000);
    expect((await put(p, kept, { caption: 'kept' })).status).toBe(201);
    expect((await put(p, id, { caption: 'mine' })).status).toBe(201);
    expect((await call('DELETE', `/v1/me/posts/${id}`, { as: p })).status).toBe(200);
    await expectGone(p, id, { caption: 'mine' }, 'deleted');
    // Another body under the same ID is refused the same way: the ID is spent.
    await expectGone(p, id, { caption: 'another' }, 'deleted');
    expect(await gridIds(p)).toEqual([kept.toString()]);
    expect((await page(p)).json.post_count).toBe('1');
  });

  it('an import rerun after a delete and a takedown imports 0 and counts 2 removed', async () => {
    const p = freshProfile(f);
    const base = Date.UTC(2024, 2, 1) + Number(p % 100_000n);
    const ids = [1, 2, 3].map((k) => composeId({ ms: base + k * 1000, worker: 6600, sequence: k }));
    const lines = ids.map((id, k) =>
      JSON.stringify({ profile_id: String(p), post_id: String(id), caption: `line ${k}` }),
    );
    const source = () => ndjsonSource('final.ndjson', () => Readable.from(lines.join('\n')));
    const run = f.service.platform.importChunk.bind(f.service.platform);
    const first = await runImport(run, source());
    expect([first.imported, first.issues]).toEqual([3, []]);
    expect((await call('DELETE', `/v1/me/posts/${ids[0]}`, { as: p })).status).toBe(200);
    const down = await call('POST', `/v1/admin/posts/${ids[1]}/takedown`, { admin: true });
    expect(down.status).toBe(200);
    const version = (await page(p)).json.grid_version as string;

    const again = await runImport(run, source());
    expect(again).toMatchObject({ imported: 0, removed: 2, present: 1, bumps: 0, issues: [] });
    for (const id of ids.slice(0, 2)) {
      expect((await call('GET', `/v1/posts/${id}`)).status).toBe(404);
    }
    expect(await gridIds(p)).toEqual([ids[2]!.toString()]);
    const after = await page(p);
    expect([after.json.grid_version, after.json.post_count]).toEqual([version, '1']);
    // And over the service route: the same IDs answer 410 with their own reasons.
    await expectGone(p, ids[0]!, { caption: 'line 0' }, 'deleted');
    await expectGone(p, ids[1]!, { caption: 'line 1' }, 'taken_down');
  });
});
