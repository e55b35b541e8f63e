/**
 * The client package (`@regrid/client`, client/src) against the real service over a real socket: the app on
 * an ephemeral loopback port, the real Cassandra and Redis behind it. Paging by cursor, a fresh
 * Idempotency-Key per move, problems as RegridError, and the batch editor flow with a 412
 * caused by another device (reload, replay, report the move whose anchor vanished).
 */
import { expect, it } from 'vitest';
import {
  createClient,
  isRegridError,
  RegridError,
  type RegridClient,
} from '../../../client/src/index.js';
import { randomProfile, readAll, tokenFor } from '../core/harness.js';
import { openPerFile } from '../support/per-file.js';
import { ADMIN_TOKEN, openApi, type Api } from './harness.js';

let api: Api;
let baseUrl: string;
openPerFile(
  async () => {
    const opened = await openApi();
    baseUrl = await opened.serve();
    return opened;
  },
  (opened) => (api = opened),
);

const sentKeys: Array<string | null> = [];
const recordingFetch: typeof fetch = async (input, init) => {
  sentKeys.push(new Headers(init?.headers).get('idempotency-key'));
  return fetch(input, init);
};

async function clientFor(profile: bigint): Promise<RegridClient> {
  return createClient({ baseUrl, token: await tokenFor(profile), fetch: recordingFetch });
}

async function seed(client: RegridClient, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await client.createPost({ caption: `p${i}` })).post.id);
  return ids.reverse(); // newest first = display order
}

const serverOrder = async (profile: bigint) =>
  (await readAll(api.core.service, profile)).map(String);

it('pages through the grid by cursor with for await, IDs as strings', async () => {
  const me = randomProfile();
  const client = await clientFor(me);
  const ids = await seed(client, 7);
  const seen: string[] = [];
  for await (const post of client.grid(String(me), { limit: 2 })) {
    expect(typeof post.id).toBe('string');
    seen.push(post.id);
  }
  expect(seen).toEqual(ids);
  const pages = [];
  for await (const page of client.gridPages(String(me), { limit: 3 }))
    pages.push(page.items.length);
  expect(pages).toEqual([3, 3, 1]);
  const media = [];
  for await (const post of client.media(String(me), { limit: 3 })) media.push(post.id);
  expect(media).toEqual(ids);
});

it('sends its own Idempotency-Key with every move, and replays a reused one', async () => {
  const me = randomProfile();
  const client = await clientFor(me);
  const [a, b, c] = (await seed(client, 3)) as [string, string, string];
  sentKeys.length = 0;
  await client.move(b, null);
  await client.move(a, b);
  expect(sentKeys).toHaveLength(2);
  expect(sentKeys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
  expect(sentKeys[1]).not.toBe(sentKeys[0]);

  const first = await client.call('move', {
    body: { post_id: a, after: null },
    idempotencyKey: 'k-1',
  });
  const again = await client.call('move', {
    body: { post_id: a, after: null },
    idempotencyKey: 'k-1',
  });
  expect(again.replayed).toBe(true);
  expect(again.data).toEqual(first.data);
  expect((await client.getPost(a)).id).toBe(a);
  expect(await serverOrder(me)).toEqual([a, b, c]);
});

it('throws problems as RegridError with status, type, title, detail and extensions', async () => {
  const me = randomProfile();
  const client = await clientFor(me);
  const err = await client.getPost('1').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RegridError);
  expect(err).toMatchObject({
    status: 404,
    type: 'https://regrid.dev/problems/post_not_found',
    title: 'No such post',
    code: 'post_not_found',
  });
  const [top, next] = (await seed(client, 2)) as [string, string];
  await client.setPins([top]);
  const pinned = await client.move(top, next).catch((e: unknown) => e);
  expect(isRegridError(pinned, 'post_pinned')).toBe(true);
  expect((pinned as RegridError).problem['grid_version']).toMatch(/^[0-9]+$/);
  const anonymous = createClient({ baseUrl });
  const denied = await anonymous.reset().catch((e: unknown) => e);
  expect(denied).toMatchObject({ status: 401, code: 'unauthorized' });
  const admin = createClient({ baseUrl, adminToken: ADMIN_TOKEN });
  expect((await admin.admin.takedown(next)).post_id).toBe(next);
});

it('batch edit: a 412 from another device is reloaded and replayed; a vanished anchor is reported', async () => {
  const me = randomProfile();
  const phone = await clientFor(me);
  const laptop = await clientFor(me);
  const [a, b, c, d, e] = (await seed(phone, 5)) as [string, string, string, string, string];

  const editor = await laptop.editOrder();
  editor.move(e, null); // e a b c d
  editor.move(a, c); // e b c a d
  editor.move(b, d); // e c a d b
  expect(editor.order).toEqual([e, c, a, d, b]);

  // Meanwhile, on the phone: c (the anchor of a's move) is deleted and a new post arrives.
  await phone.deletePost(c);
  const fresh = (await phone.createPost({ caption: 'new' })).post.id;

  const asked: unknown[] = [];
  const saved = await editor.save({ confirm: (v) => (asked.push(...v), true) });
  expect(saved.status).toBe('saved');
  expect(saved.attempts).toBe(2);
  expect(saved.vanished).toEqual([{ move: { post_id: a, after: c }, reason: 'anchor_gone' }]);
  expect(asked).toEqual(saved.vanished);
  expect(await serverOrder(me)).toEqual([e, fresh, a, d, b]);
  expect(editor.order).toEqual([e, fresh, a, d, b]);
  expect(editor.recorded).toEqual([]);

  // A caller who says no to the vanished moves sends nothing.
  const second = await laptop.editOrder();
  second.move(d, null).move(b, a);
  await phone.archivePost(a);
  const before = await serverOrder(me);
  const aborted = await second.save({ confirm: () => false });
  expect(aborted).toMatchObject({ status: 'aborted', attempts: 1 });
  expect(aborted.vanished.map((v) => v.reason)).toEqual(['anchor_gone']);
  expect(await serverOrder(me)).toEqual(before);
  const archived = [];
  for await (const item of phone.archived()) archived.push(item.post.id);
  expect(archived).toEqual([a]);
});
