/**
 * Idempotency-Key over HTTP (replay, 422, 409, crash between commit and response for a move and
 * for a post creation) and the audit: clean after a random workload, dirty after injected faults,
 * with the CLI's exit codes.
 */
import { describe, expect, it } from 'vitest';
import { runRegrid } from '../support/run-regrid.js';
import {
  SimulatedCrash,
  fingerprintRequest,
} from '../../../src/service/idempotency/idempotency.js';
import type { GridService } from '../../../src/service/grid-service.js';
import { freshProfile, httpApi, openFeatures, type Call, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
let call: Call;
let features: GridService;
openPerFile(openFeatures, (opened) => {
  f = opened;
  ({ call, features } = httpApi(f));
});

async function grid(n: number): Promise<[bigint, string[]]> {
  const p = freshProfile(f);
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await call('POST', '/v1/me/posts', { as: p, body: {} })).json.post.id);
  return [p, ids];
}
const orderOf = async (p: bigint) =>
  (await call('GET', '/v1/me/grid/order', { as: p })).json.post_ids as string[];
const versionOf = async (p: bigint) => (await f.service.store.readHead(p)).version;
const keyed = (key: string) => ({ 'idempotency-key': `"${key}"` });

async function crashAfterCommit<T>(run: () => Promise<T>): Promise<T> {
  f.hooks.afterCas = () => {
    throw new SimulatedCrash('after the CAS commit, before the response');
  };
  try {
    return await run();
  } finally {
    delete f.hooks.afterCas;
  }
}

describe('Idempotency-Key over HTTP', () => {
  it('replays, refuses a different request (422) and a duplicate in flight (409)', async () => {
    const [p, [a, b]] = await grid(2);
    const body = { post_id: a, after: null };
    const first = await call('POST', '/v1/me/grid/moves', { as: p, body, headers: keyed('m-1') });
    expect(first.status).toBe(200);
    const v = await versionOf(p);
    const again = await call('POST', '/v1/me/grid/moves', { as: p, body, headers: keyed('m-1') });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await versionOf(p)).toBe(v);

    const other = await call('POST', '/v1/me/grid/moves', {
      as: p,
      body: { post_id: b, after: null },
      headers: keyed('m-1'),
    });
    expect(other.status).toBe(422);

    // Another server is still working on key m-2 for this very request: its claim is live.
    const raw = JSON.stringify({ post_id: b, after: a });
    await f.idemStore.claim(p, 'm-2', {
      fingerprint: fingerprintRequest({ method: 'POST', route: '/v1/me/grid/moves', body: raw }),
      state: 'in_flight',
      owner: '00000000-0000-4000-8000-000000000001',
      leaseUntil: new Date(Date.now() + 60_000),
      claimedAt: v,
    });
    const dup = await call('POST', '/v1/me/grid/moves', {
      as: p,
      body: JSON.parse(raw),
      headers: keyed('m-2'),
    });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('idempotency_in_flight');
    expect(await versionOf(p)).toBe(v);

    const bad = await call('POST', '/v1/me/grid/moves', {
      as: p,
      body,
      headers: { 'idempotency-key': '' },
    });
    expect(bad.status).toBe(400);
  });

  it('applies a move once across a crash between commit and response', async () => {
    const [p, [a, b, c]] = await grid(3);
    const v0 = await versionOf(p);
    const body = { post_id: a, after: c };
    const crashed = await crashAfterCommit(() =>
      call('POST', '/v1/me/grid/moves', { as: p, body, headers: keyed('crash-move') }),
    );
    expect(crashed.status).toBe(500);
    expect(await versionOf(p)).toBe(v0 + 1n);
    await call('POST', '/v1/me/grid/moves', { as: p, body: { post_id: b, after: null } }); // meanwhile
    const retry = await call('POST', '/v1/me/grid/moves', {
      as: p,
      body,
      headers: keyed('crash-move'),
    });
    expect(retry.status).toBe(200);
    expect(retry.json.grid_version).toBe((v0 + 1n).toString());
    // The move_id is the one the crashed attempt committed (carried in the ring), and stays so.
    const third = await call('POST', '/v1/me/grid/moves', {
      as: p,
      body,
      headers: keyed('crash-move'),
    });
    expect(third.json).toEqual(retry.json);
    // ...and the move can be undone under the id the client finally got (by anchor: the
    // crashed attempt never recorded which version it committed).
    const undo = await call('POST', `/v1/me/grid/moves/${retry.json.move_id}/undo`, { as: p });
    expect(undo.status).toBe(200);
    expect(undo.json.restored).toBe('anchor');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await versionOf(p)).toBe(v0 + 3n);
    expect(await orderOf(p)).toEqual([b, a, c]); // a back right below b, where it was
  });

  it('creates a post once across a crash between commit and response', async () => {
    const [p, [a]] = await grid(1);
    const body = { caption: 'only once' };
    const crashed = await crashAfterCommit(() =>
      call('POST', '/v1/me/posts', { as: p, body, headers: keyed('crash-post') }),
    );
    expect(crashed.status).toBe(500);
    const retry = await call('POST', '/v1/me/posts', { as: p, body, headers: keyed('crash-post') });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const ids = await orderOf(p);
    expect(ids).toEqual([retry.json.post.id, a]);
    expect(retry.json.post.caption).toBe('only once');
  });
});

describe('audit', () => {
  const io = () => {
    const lines: string[] = [];
    return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
  };

  it('is clean after a random workload and dirty after injected faults', async () => {
    const [p, ids] = await grid(12);
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 30; i++) {
      const cur = await orderOf(p);
      const post = cur[rnd(cur.length)]!;
      const after = rnd(4) === 0 ? null : cur[rnd(cur.length)]!;
      if (after !== post)
        await call('POST', '/v1/me/grid/moves', { as: p, body: { post_id: post, after } });
      if (i === 10) await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [cur[3]] } });
      if (i === 20) await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [] } });
      if (i === 15) {
        await call('POST', `/v1/me/posts/${cur[5]}/archive`, { as: p });
        await call('POST', `/v1/me/posts/${cur[5]}/unarchive`, {
          as: p,
          body: { position: 'previous' },
        });
      }
    }
    const [plain] = await grid(4); // never reordered: the merged read must equal chronology
    const clean = io();
    expect(
      await runRegrid(
        ['audit', '--profile', p.toString(), '--profile', plain.toString()],
        features,
        clean.io,
      ),
    ).toBe(0);
    expect(clean.lines.at(-1)).toContain('clean');

    // Faults: an override for a post that is not on the grid, and two posts sharing a key.
    const q = (postId: bigint, key: bigint) =>
      f.client.execute(
        'UPDATE grid_overrides SET sort_key = ? WHERE profile_id = ? AND post_id = ?',
        [key, p, postId],
        { prepare: true },
      );
    await q(f.ids.next(), 5n);
    await q(BigInt(ids[0]!), BigInt(ids[1]!));
    await f.client.execute(
      'DELETE FROM grid_overrides WHERE profile_id = ? AND post_id = ?',
      [p, BigInt(ids[1]!)],
      {
        prepare: true,
      },
    );
    const dirty = io();
    expect(await runRegrid(['audit', '--profile', p.toString()], features, dirty.io)).toBe(1);
    const text = dirty.lines.join('\n');
    expect(text).toContain('not on the grid');
    expect(text).toContain('duplicate effective key');
  });

  it('takes a post down from the CLI', async () => {
    const [p, [a]] = await grid(2);
    const out = io();
    expect(await runRegrid(['takedown', a!], features, out.io)).toBe(0);
    expect(await orderOf(p)).not.toContain(a);
    expect(await runRegrid(['takedown', a!], features, io().io)).toBe(1); // not found any more
    expect(await runRegrid(['takedown'], features, io().io)).toBe(2); // usage
  });
});
