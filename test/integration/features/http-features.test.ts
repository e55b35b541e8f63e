/**
 * Issue 3 through the real HTTP app (app.request, no port) on the real Cassandra: pins, archive
 * and unarchive both ways, reset, collaborative posts, takedown, the order resource (428/412/400,
 * rows_written = n − LIS), the chronological media list, and grid_changed on paged reads.
 * Invitation limits and blocks: invitations.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { IdGenerator } from '../../../src/domain/ids.js';
import { keepMask } from '../../../src/domain/lis.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { fetchReadTally } from '../../../tools/loadtest/cql-trace.js';
import { freshProfile, httpApi, openFeatures, type Call, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
let call: Call;
let features: GridService;
openPerFile(openFeatures, (opened) => {
  f = opened;
  ({ call, features } = httpApi(f));
});

/** A new profile with `n` posts; returns [profile, post IDs oldest first as strings]. */
async function grid(n: number): Promise<[bigint, string[]]> {
  const p = freshProfile(f);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await call('POST', '/v1/me/posts', { as: p, body: { caption: `c${i}` } });
    expect(r.status).toBe(201);
    ids.push(r.json.post.id);
  }
  return [p, ids];
}

async function order(p: bigint) {
  const r = await call('GET', '/v1/me/grid/order', { as: p });
  expect(r.status).toBe(200);
  return {
    ids: r.json.post_ids as string[],
    pinned: r.json.pinned as string[],
    etag: r.headers.get('etag')!,
  };
}

const move = (p: bigint, post: string, after: string | null) =>
  call('POST', '/v1/me/grid/moves', { as: p, body: { post_id: post, after } });

/** Gives `postId` the sort key `key` behind the service's back (a stand-in for a relabel). */
/** Another writer's commit: `postId` takes `key` (its own compare-and-set, version + 1). */
const injectKey = async (p: bigint, postId: string, key: string) => {
  const { version } = await features.store.readHead(p);
  const upserts = [{ postId: BigInt(postId), sortKey: BigInt(key) }];
  expect(
    (await features.store.casGrid(p, version, version + 1n, { upserts }, undefined)).applied,
  ).toBe(true);
};

const duplicates = async (p: bigint) =>
  (await features.auditProfile(p)).findings.filter((x) => x.kind === 'duplicate_key');

describe('pins', () => {
  it('pins up to 3, refuses moving a pinned post, treats a pinned anchor as the top, unpins back', async () => {
    const [p, [a, b, c, d, e]] = await grid(5);
    const put = await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [a, b] } });
    expect(put.status).toBe(200);
    expect(put.json.pins).toEqual([a, b]);
    expect(await order(p)).toMatchObject({ ids: [e, d, c], pinned: [a, b] });

    expect(
      (await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [a, b, c, d] } })).status,
    ).toBe(400);
    const [, [foreign]] = await grid(1);
    const nf = await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [foreign] } });
    expect(nf.status).toBe(404);

    const pinnedMove = await move(p, a!, null);
    expect(pinnedMove.status).toBe(409);
    expect(pinnedMove.json.code).toBe('post_pinned');
    expect((await move(p, c!, a!)).status).toBe(200); // after a pin = to the top
    expect((await order(p)).ids).toEqual([c, e, d]);

    expect((await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [] } })).status).toBe(
      200,
    );
    expect(await order(p)).toMatchObject({ ids: [c, e, d, b, a], pinned: [] });
  });

  it('gives an unpinned post a fresh key when another row took its key meanwhile', async () => {
    const [p, [a, b, c]] = await grid(3);
    await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [b] } });
    await injectKey(p, c!, b!); // c now holds b's effective key
    expect((await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [] } })).status).toBe(
      200,
    );
    expect((await order(p)).ids).toEqual([c, b, a]);
    expect(await duplicates(p)).toEqual([]);
  });
});

describe('archive and unarchive', () => {
  it('lists the archive newest archived first, paged, for the owner only', async () => {
    const [p, [a, b, c]] = await grid(3);
    for (const id of [b, a, c]) await call('POST', `/v1/me/posts/${id}/archive`, { as: p });
    const first = await call('GET', '/v1/me/archive?limit=2', { as: p });
    expect(first.status).toBe(200);
    expect(first.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([c, a]);
    expect(typeof first.json.data[0].archived_at).toBe('string');
    const before = first.json.paging.next_before as string;
    const second = await call('GET', `/v1/me/archive?limit=2&before=${before}`, { as: p });
    expect(second.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([b]);
    expect(second.json.paging.next_before).toBeNull();
    await call('POST', `/v1/me/posts/${a}/unarchive`, { as: p, body: {} });
    const after = await call('GET', '/v1/me/archive', { as: p });
    expect(after.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([c, b]);
    expect((await call('GET', '/v1/me/archive')).status).toBe(401);
    const bad = await call('GET', '/v1/me/archive?limit=0', { as: p });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
  });

  it('restores the previous position, or the chronological one', async () => {
    const [p, [a, b, c, d]] = await grid(4);
    await move(p, a!, null); // a: top
    const v0 = BigInt(
      (await call('POST', `/v1/me/posts/${a}/archive`, { as: p })).json.grid_version,
    );
    expect((await order(p)).ids).toEqual([d, c, b]);
    // Archived, not deleted: its owner still reads it; nobody else can (issue 31).
    expect((await call('GET', `/v1/posts/${a}`, { as: p })).status).toBe(200);
    expect((await call('GET', `/v1/posts/${a}`)).status).toBe(404);

    const back = await call('POST', `/v1/me/posts/${a}/unarchive`, {
      as: p,
      body: { position: 'previous' },
    });
    expect(back.status).toBe(200);
    expect(BigInt(back.json.grid_version)).toBe(v0 + 1n);
    expect((await order(p)).ids).toEqual([a, d, c, b]);

    await call('POST', `/v1/me/posts/${a}/archive`, { as: p });
    await call('POST', `/v1/me/posts/${a}/unarchive`, {
      as: p,
      body: { position: 'chronological' },
    });
    expect((await order(p)).ids).toEqual([d, c, b, a]);
  });

  it('re-checks that the kept key is free, and answers 404 for what is not there', async () => {
    const [p, [a, b, c]] = await grid(3);
    await call('POST', `/v1/me/posts/${b}/archive`, { as: p });
    await injectKey(p, a!, b!); // a takes b's old key while b is archived
    await call('POST', `/v1/me/posts/${b}/unarchive`, { as: p, body: { position: 'previous' } });
    expect((await order(p)).ids).toEqual([c, a, b]);
    expect(await duplicates(p)).toEqual([]);

    // Unarchiving a post that is on the grid is an idempotent 200 that bumps nothing.
    const before = (await order(p)).etag;
    expect((await call('POST', `/v1/me/posts/${c}/unarchive`, { as: p, body: {} })).status).toBe(
      200,
    );
    expect((await order(p)).etag).toBe(before);
    const [, [foreign]] = await grid(1);
    expect((await call('POST', `/v1/me/posts/${foreign}/archive`, { as: p })).status).toBe(404);
  });
});

describe('reset', () => {
  it('drops every override, keeps counting versions, and leaves one range tombstone', async () => {
    const [p, ids] = await grid(6);
    for (const id of ids.slice(0, 4)) await move(p, id, null);
    const before = await order(p);
    expect(before.ids).not.toEqual([...ids].reverse());
    const r = await call('POST', '/v1/me/grid/reset', { as: p });
    expect(r.status).toBe(200);
    expect(r.json.overrides_dropped).toBe(4);
    expect(BigInt(r.json.grid_version)).toBe(
      BigInt(before.etag.split('.')[1]!.replace('"', '')) + 1n,
    );
    expect((await order(p)).ids).toEqual([...ids].reverse());

    // What the override partition costs a reader now (docs/write-paths.md quotes this).
    const rs = await f.client.execute(
      'SELECT post_id, sort_key FROM grid_overrides WHERE profile_id = ?',
      [p],
      { prepare: true, traceQuery: true },
    );
    const tally = await fetchReadTally(f.client, rs.info.traceId);
    console.log(`[reset] override partition read after reset: ${JSON.stringify(tally)}`);
    expect(tally.liveRows).toBeLessThanOrEqual(1); // the static row only
    expect(tally.tombstoneCells).toBeLessThanOrEqual(2); // one range tombstone (its two bounds)
  });
});

describe('collaborative posts', () => {
  it('shows the post on each grid once accepted, ordered independently, until a collaborator leaves', async () => {
    const [p, [p1]] = await grid(1);
    const [q, [q1, q2]] = await grid(2);
    const created = await call('POST', '/v1/me/posts', {
      as: p,
      body: { caption: 'duet', collaborators: [q.toString()] },
    });
    expect(created.status).toBe(201);
    const x = created.json.post.id as string;
    expect(created.json.post.collaborators).toEqual([q.toString()]);
    // An invitation, not a grid row: nothing shows on q's grid until q accepts.
    expect((await order(q)).ids).toEqual([q2, q1]);
    const invites = await call('GET', '/v1/me/invites', { as: q });
    expect(invites.json.data.map((i: { post: { id: string } }) => i.post.id)).toEqual([x]);
    const stranger0 = freshProfile(f);
    expect((await call('POST', `/v1/me/invites/${x}/accept`, { as: stranger0 })).status).toBe(404);
    expect((await call('POST', `/v1/me/invites/${x}/accept`, { as: q })).status).toBe(200);
    expect((await call('POST', `/v1/me/invites/${x}/accept`, { as: q })).status).toBe(200);
    expect((await call('GET', '/v1/me/invites', { as: q })).json.data).toEqual([]);
    expect((await order(q)).ids).toEqual([x, q2, q1]);

    const pBefore = await order(p);
    expect((await move(q, x, q1!)).status).toBe(200); // to the bottom of q's grid only
    expect((await order(q)).ids).toEqual([q2, q1, x]);
    expect(await order(p)).toEqual(pBefore);
    expect(pBefore.ids).toEqual([x, p1]);

    const stranger = freshProfile(f);
    expect(
      (await call('DELETE', `/v1/me/posts/${x}/collaborators/${q}`, { as: stranger })).status,
    ).toBe(403);
    expect((await call('DELETE', `/v1/me/posts/${x}/collaborators/${q}`, { as: p })).status).toBe(
      200,
    );
    expect((await order(q)).ids).toEqual([q2, q1]);
    expect((await order(p)).ids).toEqual([x, p1]);

    // The collaborator leaves on its own.
    const y = (
      await call('POST', '/v1/me/posts', { as: p, body: { collaborators: [q.toString()] } })
    ).json.post.id;
    expect((await call('POST', `/v1/me/invites/${y}/accept`, { as: q })).status).toBe(200);
    expect((await order(q)).ids[0]).toBe(y);
    expect((await call('DELETE', `/v1/me/posts/${y}/collaborators/${q}`, { as: q })).status).toBe(
      200,
    );
    expect((await order(q)).ids).toEqual([q2, q1]);

    // Deleting a collaborative post removes it from every grid.
    const z = (
      await call('POST', '/v1/me/posts', { as: p, body: { collaborators: [q.toString()] } })
    ).json.post.id;
    expect((await call('DELETE', `/v1/me/posts/${z}`, { as: p })).status).toBe(200);
    expect((await order(q)).ids).toEqual([q2, q1]);
    expect((await call('GET', '/v1/me/invites', { as: q })).json.data).toEqual([]);
    expect((await call('POST', `/v1/me/invites/${z}/accept`, { as: q })).status).toBe(404);

    // Declining drops the invitation and the collaborator from the post; the grid is untouched.
    const w = (
      await call('POST', '/v1/me/posts', { as: p, body: { collaborators: [q.toString()] } })
    ).json.post.id;
    const vq = (await order(q)).etag;
    expect((await call('POST', `/v1/me/invites/${w}/decline`, { as: q })).status).toBe(200);
    expect((await call('POST', `/v1/me/invites/${w}/decline`, { as: q })).status).toBe(404);
    expect((await call('POST', `/v1/me/invites/${w}/accept`, { as: q })).status).toBe(404);
    expect((await order(q)).ids).toEqual([q2, q1]);
    expect((await order(q)).etag).toBe(vq); // the invitation was never part of q's grid
    expect((await call('GET', `/v1/posts/${w}`)).json.collaborators).toBeUndefined();

    const self = await call('POST', '/v1/me/posts', {
      as: p,
      body: { collaborators: [p.toString()] },
    });
    expect(self.status).toBe(400);
  });
});

describe('moderation takedown', () => {
  it('removes a post from every grid, only for the admin token', async () => {
    const [p] = await grid(1);
    const [q] = await grid(1);
    const w = (
      await call('POST', '/v1/me/posts', { as: p, body: { collaborators: [q.toString()] } })
    ).json.post.id;
    expect((await call('POST', `/v1/me/invites/${w}/accept`, { as: q })).status).toBe(200);
    const vq = (await order(q)).etag;
    expect((await call('POST', `/v1/admin/posts/${w}/takedown`, { as: p })).status).toBe(401);
    const r = await call('POST', `/v1/admin/posts/${w}/takedown`, { admin: true });
    expect(r.status).toBe(200);
    expect(r.json.grids.map((g: { profile_id: string }) => g.profile_id).sort()).toEqual(
      [p.toString(), q.toString()].sort(),
    );
    expect((await order(p)).ids).not.toContain(w);
    expect((await order(q)).ids).not.toContain(w);
    expect((await order(q)).etag).not.toBe(vq);
    expect((await call('GET', `/v1/posts/${w}`)).status).toBe(404);
    expect((await call('POST', `/v1/admin/posts/${w}/takedown`, { admin: true })).status).toBe(404);
  });
});

describe('batch reorder', () => {
  it('needs If-Match, refuses stale or non-permutations, and writes n − LIS rows', async () => {
    const [p] = await grid(8);
    const o = await order(p);
    const wanted = [
      o.ids[5]!,
      o.ids[0]!,
      o.ids[1]!,
      o.ids[7]!,
      o.ids[2]!,
      o.ids[3]!,
      o.ids[4]!,
      o.ids[6]!,
    ];
    const patch = (body: unknown, ifMatch?: string) =>
      call('PATCH', '/v1/me/grid/order', {
        as: p,
        body,
        ...(ifMatch ? { headers: { 'if-match': ifMatch } } : {}),
      });

    expect((await patch({ post_ids: wanted })).status).toBe(428);
    expect((await patch({ post_ids: wanted }, '"1.999"')).status).toBe(412);
    expect((await patch({ post_ids: wanted.slice(1) }, o.etag)).status).toBe(400);
    expect((await patch({ post_ids: [...wanted.slice(1), wanted[1]] }, o.etag)).status).toBe(400);

    const ok = await patch({ post_ids: wanted }, o.etag);
    expect(ok.status).toBe(200);
    const lis = keepMask(wanted.map((id) => o.ids.indexOf(id))).filter(Boolean).length;
    expect(ok.json.rows_written).toBe(wanted.length - lis);
    const after = await order(p);
    expect(after.ids).toEqual(wanted);
    expect(ok.headers.get('etag')).toBe(after.etag);

    // A range named by its neighbours.
    const range = [after.ids[3]!, after.ids[2]!];
    const r = await patch(
      { post_ids: range, above: after.ids[1], below: after.ids[4] },
      after.etag,
    );
    expect(r.status).toBe(200);
    expect(r.json.rows_written).toBe(1);
    expect((await order(p)).ids).toEqual([
      after.ids[0],
      after.ids[1],
      ...range,
      ...after.ids.slice(4),
    ]);

    // Any other write (a new post) makes the old ETag stale.
    const cur = await order(p);
    await call('POST', '/v1/me/posts', { as: p, body: {} });
    expect((await patch({ post_ids: cur.ids }, cur.etag)).status).toBe(412);
  });
});

describe('chronological media', () => {
  it('lists by creation time whatever the display order, with time-based paging', async () => {
    const [p, ids] = await grid(5);
    await move(p, ids[0]!, null);
    await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [ids[2]] } });
    const newestFirst = [...ids].reverse();
    const all = await call('GET', `/v1/profiles/${p}/media?limit=100`);
    expect(all.json.data.map((x: { id: string }) => x.id)).toEqual(newestFirst);

    const paged: string[] = [];
    let next: string | null = `/v1/profiles/${p}/media?limit=2`;
    while (next) {
      const r = await call('GET', next);
      expect(r.status).toBe(200);
      paged.push(...r.json.data.map((x: { id: string }) => x.id));
      next = r.json.paging.next;
    }
    expect(paged).toEqual(newestFirst);

    const t = (id: string) =>
      Date.parse(all.json.data.find((x: { id: string }) => x.id === id).created_at) / 1000;
    const window = await call(
      'GET',
      `/v1/profiles/${p}/media?since=${t(ids[1]!)}&until=${t(ids[3]!)}`,
    );
    expect(window.json.data.map((x: { id: string }) => x.id)).toContain(ids[1]);
    for (const x of window.json.data as Array<{ id: string }>) {
      expect(t(x.id)).toBeGreaterThanOrEqual(t(ids[1]!));
      expect(t(x.id)).toBeLessThan(t(ids[3]!));
    }
    expect((await call('GET', `/v1/profiles/${p}/media?until=abc`)).status).toBe(400);
  });
});

describe('media query bounds', () => {
  it('400 problem+json for times IDs cannot encode and non-canonical IDs; in-range bounds work', async () => {
    const [p, ids] = await grid(3);
    const bad = [
      'since=2393351628', // one second past the last millisecond an ID can hold
      'until=2393351628',
      'since=2393351627.776',
      'until=99999999999',
      'since=1293839999.999', // before the ID epoch
      'since=0',
      'since=1e9',
      'until=%201700000000',
      `before=0${ids[2]}`,
      'before=0',
      'before=9223372036854775808',
    ];
    for (const q of bad) {
      const r = await call('GET', `/v1/profiles/${p}/media?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.headers.get('content-type'), q).toContain('application/problem+json');
      expect(r.json.code, q).toBe('invalid_request');
    }
    expect((await call('GET', `/v1/profiles/0${p}/media`)).status).toBe(400);

    const edges = await call(
      'GET',
      `/v1/profiles/${p}/media?since=1293840000&until=2393351627.775`,
    );
    expect(edges.status).toBe(200);
    expect(edges.json.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());

    // A fractional `since` survives into the next page's link.
    const t0 = Date.parse((await call('GET', `/v1/posts/${ids[0]}`)).json.created_at) / 1000;
    const since = (t0 - 0.001).toFixed(3);
    const first = await call('GET', `/v1/profiles/${p}/media?since=${since}&limit=2`);
    const nextSince = new URL(first.json.paging.next, 'http://x').searchParams.get('since');
    expect(Number(nextSince)).toBe(Number(since));
    const rest = await call('GET', first.json.paging.next);
    expect(rest.status).toBe(200);
    expect(rest.json.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
  });
});

describe('reads that notice change', () => {
  it('flags grid_changed on the next page after a write', async () => {
    const [p, ids] = await grid(5);
    const first = await call('GET', `/v1/profiles/${p}/grid?limit=2`);
    expect(first.json.grid_changed).toBe(false);
    const same = await call(
      'GET',
      `/v1/profiles/${p}/grid?limit=2&cursor=${first.json.next_cursor}`,
    );
    expect(same.json.grid_changed).toBe(false);
    await move(p, ids[0]!, null);
    const second = await call(
      'GET',
      `/v1/profiles/${p}/grid?limit=2&cursor=${first.json.next_cursor}`,
    );
    expect(second.status).toBe(200);
    expect(second.json.grid_changed).toBe(true);
  });
});

describe('undo', () => {
  it('restores the exact key when nothing changed since, else moves back after the old anchor', async () => {
    const [p, [a, b, c, d]] = await grid(4);
    const m1 = await move(p, a!, null);
    expect(m1.json.move_id).toMatch(/^[0-9a-f-]{36}$/);
    const u1 = await call('POST', `/v1/me/grid/moves/${m1.json.move_id}/undo`, { as: p });
    expect(u1.status).toBe(200);
    expect(u1.json.restored).toBe('exact');
    expect((await order(p)).ids).toEqual([d, c, b, a]);

    const m2 = await move(p, a!, null); // [a, d, c, b]... a was right below b
    await move(p, d!, null); // [d, a, c, b]
    const u2 = await call('POST', `/v1/me/grid/moves/${m2.json.move_id}/undo`, { as: p });
    expect(u2.json.restored).toBe('anchor');
    expect((await order(p)).ids).toEqual([d, c, b, a]);

    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await call('POST', `/v1/me/grid/moves/${missing}/undo`, { as: p })).status).toBe(404);
    expect((await call('POST', '/v1/me/grid/moves/not-a-uuid/undo', { as: p })).status).toBe(400);
  });
});

describe('cursor after a relabel', () => {
  it("continues after the cursor post's new key: no skips, no repeats", async () => {
    // Posts made in one millisecond have consecutive IDs: no midpoint anywhere, so any move
    // between them relabels its neighbours (here: the whole small grid).
    const fixedMs = Date.now();
    const tight = new GridService({
      cql: cqlOf(f.client),
      config: f.config,
      ids: new IdGenerator(8191, () => fixedMs),
      cursorSecret: 'feature-tests-cursor-secret',
    });
    const p = freshProfile(f);
    const ids: bigint[] = [];
    for (let i = 0; i < 6; i++) ids.push((await tight.createPost(p, {})).value.postId);
    const top = [...ids].reverse(); // display order
    const page1 = await tight.pages.page({ profileId: p, limit: 3 });
    expect(page1.entries.map((e) => e.postId)).toEqual(top.slice(0, 3));
    const cursorPost = top[2]!;

    // Move within page 1 (the top post below the second): the cursor post gets relabelled.
    await tight.move(p, top[0]!, top[1]!);
    const rows = (await tight.store.readOverrides(p)).overrides;
    const relabelled = rows.find((r) => r.postId === cursorPost);
    expect(relabelled && relabelled.key !== cursorPost).toBe(true); // the premise of this test
    expect(relabelled!.movedVersion).toBeUndefined();

    const page2 = await tight.pages.page({ profileId: p, limit: 10, cursor: page1.nextCursor! });
    expect(page2.gridChanged).toBe(true);
    expect(page2.entries.map((e) => e.postId)).toEqual(top.slice(3));
  });
});
