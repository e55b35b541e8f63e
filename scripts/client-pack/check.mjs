// Run by scripts/ci-client-pack.sh in a throwaway project that installed nothing but the packed
// @regrid/client, on plain Node (no TypeScript, no loader), against a running regrid service at
// REGRID_URL: a development token, posts created, moves with Idempotency-Keys (one replayed),
// the grid read back page by page by cursor, a batch order saved, a problem as RegridError.
import { createClient, isRegridError } from '@regrid/client';

const baseUrl = process.env.REGRID_URL;
const checks = [];
function check(what, ok, detail = '') {
  checks.push(what);
  if (!ok) {
    console.error(`client-pack: FAIL ${what}${detail ? `: ${detail}` : ''}`);
    process.exit(1);
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const { token, profile_id: me } = (await createClient({ baseUrl }).call('devToken')).data;
const client = createClient({ baseUrl, token, retries: 2 });

const ids = [];
for (const caption of ['pack a', 'pack b', 'pack c']) {
  ids.push((await client.createPost({ caption })).post.id);
}
const [a, b, c] = ids;
const sent = [];
const watched = createClient({
  baseUrl,
  token,
  fetch: (url, init) => (
    sent.push(new Headers(init?.headers).get('idempotency-key')),
    fetch(url, init)
  ),
});
await watched.move(a, null); // c b a → a c b
check(
  'a move carries its own Idempotency-Key',
  /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/.test(sent[0] ?? ''),
  String(sent[0]),
);
const key = `ci-pack-${Date.now()}`;
const first = await client.call('move', { body: { post_id: b, after: a }, idempotencyKey: key });
const again = await client.call('move', { body: { post_id: b, after: a }, idempotencyKey: key });
check(
  'a retry with the same key is replayed, not applied twice',
  again.replayed && same(again.data, first.data),
);

const order = await client.order();
const seen = [];
// min_version: read-your-writes, whatever a cache still holds.
for await (const item of client.grid(me, { limit: 7, min_version: again.data.grid_version }))
  seen.push(item.id);
check(
  'the grid starts a, b, c after the moves',
  same(seen.slice(0, 3), [a, b, c]),
  seen.slice(0, 3).join(','),
);
check(
  'paging by cursor returns every post once',
  new Set(seen).size === seen.length && seen.length === order.post_ids.length + order.pinned.length,
  `${seen.length} read, order has ${order.post_ids.length} + ${order.pinned.length} pinned`,
);

const editor = await client.editOrder();
editor.move(c, null); // a b c → c a b
const saved = await editor.save();
const top = [];
const after = saved.status === 'saved' ? saved.grid_version : '0';
for await (const item of client.grid(me, { limit: 3, min_version: after }))
  if (top.push(item.id) === 3) break;
check(
  'the batch editor saved c, a, b',
  saved.status === 'saved' && same(top, [c, a, b]),
  top.join(','),
);

const missing = await client.getPost('1').catch((e) => e);
check(
  'a problem is a RegridError with its code',
  isRegridError(missing, 'post_not_found'),
  String(missing),
);

console.log(
  `client-pack: ${checks.length} checks passed on Node ${process.version} (profile ${me}: ${a}, ${b}, ${c})`,
);
