/**
 * The OpenAPI document says what the server sends (issue 33 item 7): `/dev/token` only in the
 * document of a development server (one that mounts it), `Retry-After` on a 409 described as sent
 * with `idempotency_in_flight` alone (`anchor_not_on_grid` and the other conflicts send none),
 * a page size as the bounded integer the routes accept, and HEAD beside every GET (Hono answers
 * HEAD with the GET route, without the body).
 */
import { describe, expect, it } from 'vitest';
import { serverApp } from '../../../tools/client-api/generate.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../../src/service/read/read-page.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function documentOf(opts: Parameters<typeof serverApp>[0]): Promise<Json> {
  const res = await serverApp(opts).request('/openapi.json');
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe('the served document', () => {
  it('lists /dev/token only where the route is mounted', async () => {
    expect((await documentOf({ devTokens: false })).paths['/dev/token']).toBeUndefined();
    expect((await documentOf({ devTokens: true })).paths['/dev/token']?.post).toBeDefined();
  });

  it('declares Retry-After on a 409 only as sent with idempotency_in_flight', async () => {
    const doc = await documentOf({});
    const move = doc.paths['/v1/me/grid/moves'].post.responses['409'];
    expect(move.content['application/problem+json'].schema.properties.code.enum).toEqual(
      expect.arrayContaining(['anchor_not_on_grid', 'idempotency_in_flight']),
    );
    const header = move.headers['Retry-After'];
    expect(header.required ?? false).toBe(false);
    expect(header.description).toMatch(/only with `idempotency_in_flight`/);
    // A 409 that cannot be idempotency_in_flight declares none.
    const put = doc.paths['/v1/profiles/{profile_id}/posts/{post_id}'].put.responses['409'];
    expect(put.headers?.['Retry-After']).toBeUndefined();
  });

  it('types limit as the bounded integer the grid read accepts', async () => {
    const doc = await documentOf({});
    const params = doc.paths['/v1/profiles/{profile_id}/grid'].get.parameters as Json[];
    expect(params.find((p) => p.name === 'limit')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: DEFAULT_PAGE_LIMIT,
    });
  });

  it('lists HEAD where a GET route serves it: the same statuses and headers, no body', async () => {
    const app = serverApp();
    const head = await app.request('/openapi.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const doc = await documentOf({});
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      if (!ops.get) {
        expect(ops.head, path).toBeUndefined();
        continue;
      }
      expect(ops.head, path).toBeDefined();
      expect(Object.keys(ops.head.responses), path).toEqual(Object.keys(ops.get.responses));
      for (const res of Object.values(ops.head.responses as Json))
        expect(res.content).toBeUndefined();
      expect(ops.head.operationId).toBe(`${ops.get.operationId}Head`);
    }
    expect(
      doc.paths['/v1/profiles/{profile_id}/grid'].head.responses['200'].headers.ETag,
    ).toBeDefined();
  });
});
