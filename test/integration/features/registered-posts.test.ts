/**
 * Registered posts over HTTP on the real service and Cassandra (ops/register.ts,
 * routes/profile-posts.ts): a platform's post service puts its own posts on a grid by its IDs.
 *   - an old post lands at its creation position (under the pins, not on top), a new one on top;
 *   - the same PUT again is a 200 that bumps nothing; another body is 409; a created_at that
 *     disagrees with the ID, or an ID from the future, is 400 and writes nothing;
 *   - DELETE is idempotent; a post of another profile is 409; a deleted ID is spent (410);
 *   - collaborators are invited (consent): nothing on their grid until they accept;
 *   - user tokens cannot call the service routes, service tokens cannot act as a user.
 */
import { describe, expect, it } from 'vitest';
import { composeId, decomposeId } from '../../../src/domain/ids.js';
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
  composeId({ ms, worker: 7000 + (seq % 100), sequence: seq++ % 1024 });
const put = (profile: bigint, id: bigint, body: unknown = {}) =>
  call('PUT', `/v1/profiles/${profile}/posts/${id}`, { service: SVC, body });
const gridIds = async (profile: bigint) =>
  (
    (await call('GET', `/v1/profiles/${profile}/grid?limit=50`)).json.items as Array<{ id: string }>
  ).map((i) => i.id);
const versionOf = async (profile: bigint) =>
  (await call('GET', `/v1/profiles/${profile}/grid?limit=1`)).json.grid_version as string;

describe('registered posts', () => {
  it('an old post lands at its creation position, under the pins; a new one on top', async () => {
    const p = freshProfile(f);
    const made: string[] = [];
    for (const caption of ['a', 'b', 'c']) {
      const r = await call('POST', '/v1/me/posts', { as: p, body: { caption } });
      made.push(r.json.post.id as string);
    }
    const [a, b] = made.map((id) => decomposeId(BigInt(id)).ms);
    // Pin the newest, move the oldest to the top: the registered post must not pass either.
    expect(
      (await call('PUT', '/v1/me/grid/pins', { as: p, body: { post_ids: [made[2]] } })).status,
    ).toBe(200);
    const old = platformId(Math.floor((a! + b!) / 2)); // between a and b
    const reg = await put(p, old, { caption: 'imported' });
    expect(reg.status).toBe(201);
    expect(reg.json.post.created_at).toBe(new Date(decomposeId(old).ms).toISOString());
    expect(await gridIds(p)).toEqual([made[2], made[1], old.toString(), made[0]]);
    const fresh = platformId(Date.now());
    expect((await put(p, fresh)).status).toBe(201);
    expect(await gridIds(p)).toEqual([made[2], fresh.toString(), made[1], old.toString(), made[0]]);
    const page = await call('GET', `/v1/profiles/${p}/grid?limit=50`);
    expect(page.json.post_count).toBe('5');
  });

  it('the same PUT again writes nothing; another body is 409; both leave the version', async () => {
    const p = freshProfile(f);
    const id = platformId(Date.now() - 86_400_000);
    const body = {
      caption: 'x',
      media_url: 'https://cdn.example/x.jpg',
      created_at: new Date(decomposeId(id).ms).toISOString(),
    };
    expect((await put(p, id, body)).status).toBe(201);
    const v = await versionOf(p);
    const again = await put(p, id, body);
    expect(again.status).toBe(200);
    expect(again.json.grid_version).toBe(v);
    const other = await put(p, id, { ...body, caption: 'y' });
    expect([other.status, other.json.code]).toEqual([409, 'conflict']);
    // The same ID on another profile is another body too.
    expect((await put(freshProfile(f), id, body)).status).toBe(409);
    expect(await versionOf(p)).toBe(v);
    expect((await call('GET', `/v1/posts/${id}`)).json.caption).toBe('x');
  });

  it('refuses a created_at that disagrees with the ID and an ID from the future (400, nothing written)', async () => {
    const p = freshProfile(f);
    const id = platformId(Date.now() - 60_000);
    const off = new Date(decomposeId(id).ms + 1).toISOString();
    const bad = await put(p, id, { created_at: off });
    expect([bad.status, bad.json.code, bad.headers.get('content-type')]).toEqual([
      400,
      'invalid_request',
      'application/problem+json',
    ]);
    const future = await put(p, platformId(Date.now() + 3_600_000));
    expect([future.status, future.json.field]).toEqual([400, 'post_id']);
    const notTime = await put(p, id, { created_at: 'yesterday' });
    expect(notTime.status).toBe(400);
    expect((await call('GET', `/v1/posts/${id}`)).status).toBe(404);
    expect(await versionOf(p)).toBe('0');
  });

  it('DELETE is idempotent and removes the post; another profile is 409', async () => {
    const p = freshProfile(f);
    const id = platformId(Date.now() - 5_000);
    expect((await put(p, id)).status).toBe(201);
    expect(
      (await call('DELETE', `/v1/profiles/${freshProfile(f)}/posts/${id}`, { service: SVC }))
        .status,
    ).toBe(409);
    const first = await call('DELETE', `/v1/profiles/${p}/posts/${id}`, { service: SVC });
    expect(first.status).toBe(200);
    const second = await call('DELETE', `/v1/profiles/${p}/posts/${id}`, { service: SVC });
    expect([second.status, second.json.grid_version]).toEqual([200, first.json.grid_version]);
    expect(await gridIds(p)).toEqual([]);
    expect((await call('GET', `/v1/posts/${id}`)).status).toBe(404);
    // Deleted, its ID is spent: registering it again is 410 (a re-published post needs a new ID).
    const again = await put(p, id);
    expect([again.status, again.json.code, again.json.reason]).toEqual([
      410,
      'post_removed',
      'deleted',
    ]);
    expect(await gridIds(p)).toEqual([]);
  });

  it('collaborators are invited, not put on their grid, until they accept', async () => {
    const p = freshProfile(f);
    const c = freshProfile(f);
    const id = platformId(Date.now() - 10_000);
    const reg = await put(p, id, { collaborators: [c.toString()] });
    expect(reg.status).toBe(201);
    expect(await gridIds(c)).toEqual([]);
    const invites = await call('GET', '/v1/me/invites', { as: c });
    expect((invites.json.data as Array<{ post: { id: string } }>).map((i) => i.post.id)).toEqual([
      id.toString(),
    ]);
    expect((await put(p, id, { collaborators: [c.toString()] })).status).toBe(200); // no second invitation
    expect((await call('POST', `/v1/me/invites/${id}/accept`, { as: c })).status).toBe(200);
    expect(await gridIds(c)).toEqual([id.toString()]);
    expect((await put(p, id, { collaborators: [p.toString()] })).status).toBe(400);
  });

  it('a user token cannot call the service routes; a service token cannot act as a user', async () => {
    const p = freshProfile(f);
    const id = platformId(Date.now() - 1_000);
    const asUser = await call('PUT', `/v1/profiles/${p}/posts/${id}`, { as: p, body: {} });
    expect([asUser.status, asUser.json.code]).toEqual([401, 'unauthorized']);
    const asUserDelete = await call('DELETE', `/v1/profiles/${p}/posts/${id}`, { as: p });
    expect(asUserDelete.status).toBe(401);
    const asService = await call('POST', '/v1/me/posts', { service: SVC, body: { caption: 'x' } });
    expect(asService.status).toBe(401);
    const anonymous = await call('PUT', `/v1/profiles/${p}/posts/${id}`, { body: {} });
    expect(anonymous.status).toBe(401);
    expect((await call('GET', `/v1/posts/${id}`)).status).toBe(404);
    // The public grid route next to the service routes stays public.
    expect((await call('GET', `/v1/profiles/${p}/grid`)).status).toBe(200);
  });
});
