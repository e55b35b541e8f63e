/**
 * The client package (@regrid/client, docs/client.md) against a running regrid (`npm start`,
 * which prints a development token). In this repository the name resolves to client/src
 * (tsconfig.json `paths`); elsewhere it is the installed package:
 *
 *   REGRID_TOKEN=<token> npm run example:client          # REGRID_URL defaults to :8080
 *
 * Creates three posts, moves one with its own Idempotency-Key, pages through the grid by
 * cursor, then edits the order as a batch (If-Match; a 412 is reloaded and replayed).
 */
import { createClient, isRegridError } from '@regrid/client';

const baseUrl = process.env['REGRID_URL'] ?? 'http://127.0.0.1:8080';
const token = process.env['REGRID_TOKEN'];
if (!token) {
  console.error('set REGRID_TOKEN to the token `npm start` printed');
  process.exit(64);
}
// The token's subject is the caller's profile ID (a decimal string).
const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
const me = String(payload.sub);

const client = createClient({ baseUrl, token });

const created = [];
for (const caption of ['example a', 'example b', 'example c']) {
  created.push((await client.createPost({ caption })).post);
}
const [a, b, c] = created.map((p) => p.id) as [string, string, string];
console.log('created', a, b, c);

const moved = await client.move(a, null); // a to the top
console.log('moved a to the top: grid version', moved.grid_version, 'undo with', moved.move_id);

let shown = 0;
for await (const item of client.grid(me, { limit: 10 })) {
  if (shown++ < 5) console.log('  grid:', item.id, item.caption);
}
console.log(`the grid holds ${shown} posts`);

const editor = await client.editOrder();
editor.move(c, null).move(b, c); // c, b on top
const saved = await editor.save({
  confirm: (vanished) => {
    console.log('moves whose anchors vanished meanwhile:', vanished);
    return true;
  },
});
console.log('batch order:', saved);

try {
  await client.move(a, a);
} catch (err) {
  if (!isRegridError(err)) throw err;
  console.log(`refused as expected: ${err.status} ${err.type} (${err.detail})`);
}
