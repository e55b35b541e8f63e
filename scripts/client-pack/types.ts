// Compiled by scripts/ci-client-pack.sh with tsc in the throwaway project: the packed .d.ts files
// must type a consumer on their own (no server, no zod), results and inputs alike.
import { createClient, isRegridError, type GridItem, type MoveBody } from '@regrid/client';

const client = createClient({ baseUrl: 'http://127.0.0.1:8080', token: () => 'jwt' });
const body: MoveBody = { post_id: '1', after: null };
export async function use(): Promise<string[]> {
  const moved = await client.move(body.post_id, body.after);
  const version: string = moved.grid_version;
  const items: GridItem[] = [];
  for await (const item of client.grid('42', { limit: 10 })) items.push(item);
  const editor = await client.editOrder();
  const saved = await editor.move('1', null).save();
  // @ts-expect-error an ID is a string, never a number
  await client.move(1, null);
  try {
    await client.getPost('1');
  } catch (err) {
    if (isRegridError(err, 'post_not_found')) return [version, saved.status];
  }
  return items.map((i) => i.id);
}
