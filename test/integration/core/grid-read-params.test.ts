/**
 * Query parameters of `GET /v1/profiles/:profile_id/grid` on the real Cassandra:
 * - bad `limit` / profile ID / `min_version` → 400 problem+json, nothing written;
 * - `min_version` takes a bare version or `<generation>.<version>` (as in ETags), the latter
 *   compared generation first (observed through the LOCAL_SERIAL head re-read it triggers);
 * - a cursor only works on the grid that issued it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, openCore, randomProfile, seedGrid, type Core, type Reply } from './harness.js';

let core: Core;
beforeAll(async () => {
  core = await openCore();
});
afterAll(async () => {
  await core?.close();
});

const expectProblem = (r: Reply, status: number, code: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(r.json.type).toBe(`https://regrid.dev/problems/${code}`);
  expect(r.json.status).toBe(status);
};

const grid = (profileId: bigint | string, query = '') =>
  call(core, 'GET', `/v1/profiles/${profileId}/grid${query}`);

describe('GET /v1/profiles/:profile_id/grid parameters', () => {
  it('400 for a bad limit or profile ID, and nothing is written', async () => {
    const me = randomProfile();
    await seedGrid(core, me, 3);
    const before = await grid(me);
    expect(before.status).toBe(200);
    const head = vi.spyOn(core.service.reader, 'readHead');
    try {
      for (const limit of ['0', '101', 'abc', '-1', '2.5', '']) {
        expectProblem(await grid(me, `?limit=${limit}`), 400, 'invalid_request');
      }
      for (const id of ['abc', '0', '-1', '12abc', '9223372036854775808', '1e3', '%20']) {
        expectProblem(await grid(id), 400, 'invalid_request');
      }
      // Rejected at the boundary: not even the grid head was read.
      expect(head).not.toHaveBeenCalled();
    } finally {
      head.mockRestore();
    }
    const after = await grid(me);
    expect(after.json.grid_version).toBe(before.json.grid_version);
    expect(after.json.items).toEqual(before.json.items);
    const fresh = await core.service.store.readHead(me);
    expect(fresh.version.toString()).toBe(before.json.grid_version);
  });

  it('min_version: a bare version or generation.version, generation compared first', async () => {
    const me = randomProfile();
    await seedGrid(core, me, 3);
    const v = BigInt((await grid(me)).json.grid_version);
    const head = vi.spyOn(core.service.reader, 'readHead');
    // True when answering needed the LOCAL_SERIAL re-read, i.e. the floor was above the head.
    const aboveHead = async (floor: string) => {
      head.mockClear();
      const r = await grid(me, `?min_version=${encodeURIComponent(floor)}`);
      expect(r.status).toBe(200);
      expect(r.json.grid_version).toBe(String(v));
      return head.mock.calls.some((args) => args[1] === 'serial');
    };
    try {
      expect(await aboveHead(`${v}`)).toBe(false);
      expect(await aboveHead(`${v + 1n}`)).toBe(true);
      expect(await aboveHead(`1.${v}`)).toBe(false);
      expect(await aboveHead(`"1.${v}"`)).toBe(false); // an ETag verbatim
      expect(await aboveHead(`1.${v + 1n}`)).toBe(true);
      expect(await aboveHead(`1.0`)).toBe(false);
      // A later generation is newer whatever its version; an earlier one is older.
      expect(await aboveHead(`2.0`)).toBe(true);
      expect(await aboveHead(`2.${v - 1n}`)).toBe(true);
    } finally {
      head.mockRestore();
    }
    for (const bad of ['abc', '-1', '01', '0.5', '1.', '.5', '1.2.3', '1.-2', '"1.2', '1,2', '']) {
      expectProblem(
        await grid(me, `?min_version=${encodeURIComponent(bad)}`),
        400,
        'invalid_request',
      );
    }
    for (const tooBig of [
      '9223372036854775808',
      '1.9223372036854775808',
      '9223372036854775808.1',
    ]) {
      expectProblem(await grid(me, `?min_version=${tooBig}`), 400, 'invalid_request');
    }
    expect((await grid(me)).json.grid_version).toBe(String(v));
  });

  it("400 bad_cursor for a cursor replayed on another profile's grid", async () => {
    const a = randomProfile();
    const b = randomProfile();
    const aIds = await seedGrid(core, a, 4);
    await seedGrid(core, b, 4);
    const first = await grid(a, '?limit=2');
    const cursor: string = first.json.next_cursor;
    expect(cursor).toBeTruthy();
    // Same secret, same service: only the grid differs.
    expectProblem(await grid(b, `?limit=2&cursor=${cursor}`), 400, 'bad_cursor');
    const next = await grid(a, `?limit=2&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect(next.json.items.map((i: { id: string }) => i.id)).toEqual(aIds.slice(2).map(String));
  });
});
