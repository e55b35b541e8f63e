/**
 * The single-node behaviour, on the 3-node ring at RF 3 (LOCAL_QUORUM commits, LOCAL_SERIAL
 * Paxos): moves, reads, pins, the batch reorder, the idempotent replay, and no tombstone on any
 * replica, with a control that shows the replica count does see one written on purpose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../tools/loadtest/history.js';
import {
  call,
  freshProfile,
  openInstance,
  readWholeGrid,
  seedGrid,
  type Instance,
} from '../faults/support/instance.js';
import { gridTombstones, replicaTally } from './support/replicas.js';
import { clusterConfig, ensureFullRing } from './support/ring-stores.js';

let inst: Instance;
beforeAll(async () => {
  await ensureFullRing();
  inst = await openInstance(clusterConfig(), { deadlines: true });
});
afterAll(async () => {
  await inst?.close();
});

const move = (p: bigint, post: bigint, after: bigint | null, key?: string) =>
  call(inst, 'POST', '/v1/me/grid/moves', p, {
    body: { post_id: String(post), after: after === null ? null : String(after) },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });

const firstPage = async (p: bigint) => {
  const r = await call(inst, 'GET', `/v1/profiles/${p}/grid?limit=24`, p);
  expect(r.status).toBe(200);
  return r.json as { grid_version: string; items: Array<{ id: string }> };
};

describe('the ring behaves as one node', () => {
  it('moves and reads: every acknowledged move shows, in order, on the first page and in full', async () => {
    const p = freshProfile();
    const initial = await seedGrid(inst, p, 10);
    const moves: Array<[bigint, bigint | null]> = [
      [initial[7]!, null],
      [initial[2]!, initial[5]!],
      [initial[9]!, initial[0]!],
      [initial[0]!, null],
      [initial[4]!, initial[9]!],
    ];
    let version = 0n;
    for (const [post, after] of moves) {
      const r = await move(p, post, after);
      expect(r.status).toBe(200);
      expect(BigInt(r.json.grid_version)).toBeGreaterThan(version);
      version = BigInt(r.json.grid_version);
    }
    const want = replay(
      initial,
      moves.map(([postId, after], seq) => ({ postId, after, version: null, seq })),
    );
    const page = await firstPage(p);
    expect(BigInt(page.grid_version)).toBe(version);
    expect(page.items.map((i) => BigInt(i.id))).toEqual(want);
    expect(await readWholeGrid(inst, p)).toEqual(want);
  });

  it('pins: a pinned post leads the grid and refuses a move; unpinning puts it back', async () => {
    const p = freshProfile();
    const initial = await seedGrid(inst, p, 6);
    const pinned = initial[3]!;
    const put = await call(inst, 'PUT', '/v1/me/grid/pins', p, {
      body: { post_ids: [String(pinned)] },
    });
    expect(put.status).toBe(200);
    expect((await firstPage(p)).items[0]!.id).toBe(String(pinned));
    const refused = await move(p, pinned, initial[0]!);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('post_pinned');
    const unpin = await call(inst, 'PUT', '/v1/me/grid/pins', p, { body: { post_ids: [] } });
    expect(unpin.status).toBe(200);
    expect((await firstPage(p)).items.map((i) => BigInt(i.id))).toEqual(initial);
  });

  it('batch reorder: If-Match on the ETag, the whole order written in one compare-and-set', async () => {
    const p = freshProfile();
    const initial = await seedGrid(inst, p, 8);
    const order = await call(inst, 'GET', '/v1/me/grid/order', p);
    expect(order.status).toBe(200);
    expect(order.json.post_ids).toEqual(initial.map(String));
    const wanted = [5, 0, 1, 7, 2, 3, 4, 6].map((i) => initial[i]!);
    const stale = await call(inst, 'PATCH', '/v1/me/grid/order', p, {
      body: { post_ids: wanted.map(String) },
      headers: { 'if-match': '"1.999"' },
    });
    expect(stale.status).toBe(412);
    const ok = await call(inst, 'PATCH', '/v1/me/grid/order', p, {
      body: { post_ids: wanted.map(String) },
      headers: { 'if-match': order.etag ?? '' },
    });
    expect(ok.status).toBe(200);
    expect(await readWholeGrid(inst, p)).toEqual(wanted);
  });

  it('idempotent replay: the same key answers the same version and applies once', async () => {
    const p = freshProfile();
    const initial = await seedGrid(inst, p, 5);
    const first = await move(p, initial[4]!, null, 'ring-replay-1');
    expect(first.status).toBe(200);
    const again = await move(p, initial[4]!, null, 'ring-replay-1');
    expect(again.status).toBe(200);
    expect(again.replayed).toBe(true);
    expect(again.json.grid_version).toBe(first.json.grid_version);
    expect((await firstPage(p)).grid_version).toBe(first.json.grid_version);
    // The key with another body is refused rather than silently answered.
    const other = await move(p, initial[1]!, null, 'ring-replay-1');
    expect(other.status).toBe(422);
  });

  it('tombstones: every replica reads the moved, pinned and reordered grid without one', async () => {
    const p = freshProfile();
    const initial = await seedGrid(inst, p, 30);
    for (let i = 0; i < 30; i++) {
      const post = initial[(i * 7) % 30]!;
      const after = i % 5 === 0 ? null : initial[(i * 11 + 3) % 30]!;
      if (after !== post) expect((await move(p, post, after)).status).toBe(200);
    }
    for (const pins of [[initial[2]!], []]) {
      const r = await call(inst, 'PUT', '/v1/me/grid/pins', p, {
        body: { post_ids: pins.map(String) },
      });
      expect(r.status).toBe(200);
    }
    const ids = await readWholeGrid(inst, p);
    const patch = await call(inst, 'PATCH', '/v1/me/grid/order', p, {
      body: { post_ids: [...ids].reverse().map(String) },
      headers: { 'if-match': (await call(inst, 'GET', '/v1/me/grid/order', p)).etag ?? '' },
    });
    expect(patch.status).toBe(200);

    const t = await gridTombstones(inst.client, p);
    console.log(
      `[ring tombstones] ${t.total.reads} replica reads: ${t.total.liveRows} live rows, ` +
        `${t.total.tombstoneCells} tombstone cells (overrides ${t.overrides.tombstoneCells}, posts ${t.posts.tombstoneCells})`,
    );
    expect(t.overrides.reads).toBeGreaterThanOrEqual(3);
    expect(t.posts.reads).toBeGreaterThanOrEqual(3);
    expect(t.total.liveRows).toBeGreaterThan(3 * 30);
    expect(t.total.tombstoneCells).toBe(0);
  });

  it('control: one deliberate null bind is seen as a tombstone on every replica', async () => {
    const p = freshProfile();
    await seedGrid(inst, p, 3);
    expect((await replicaTally(inst.client, 'grid_overrides', p)).tombstoneCells).toBe(0);
    // Exactly what the move path must never do: bind null instead of leaving a column unset.
    await inst.client.execute(
      'UPDATE grid_overrides SET sort_key = ?, moved_version = ? WHERE profile_id = ? AND post_id = ?',
      [5n, null, p, 5n],
      { prepare: true },
    );
    const after = await replicaTally(inst.client, 'grid_overrides', p);
    expect(after.tombstoneCells).toBeGreaterThanOrEqual(3); // one on each of the three replicas
  });
});
