/**
 * The OpenAPI document against the app it describes: every route of the app (Hono's
 * `app.routes`) is in the document and every documented operation is a route; the document is
 * valid OpenAPI 3.1 by an independent validator; and real replies of the real service (every
 * operation's success and a spread of problems) match the documented statuses and schemas.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { randomProfile } from '../core/harness.js';
import { openPerFile } from '../support/per-file.js';
import { Contract } from '../support/contract.js';
import { openApi, type Api } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `/v1/posts/:post_id` (Hono's) → `/v1/posts/{post_id}` (OpenAPI's). */
const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

let api: Api;
let doc: Json;
openPerFile(openApi, (opened) => (api = opened));

beforeAll(async () => {
  const r = await api.request('GET', '/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json;
});

const documented = (d: Json) =>
  Object.entries(d.paths as Json).flatMap(([path, ops]) =>
    Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`),
  );

describe('the document and the app', () => {
  it('lists every route of the app, and only those', () => {
    // Hono answers HEAD with a GET route (without the body): the document lists both.
    const routes = new Set(
      api.app.routes
        .filter((r) => r.method !== 'ALL')
        .flatMap((r) =>
          (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]).map(
            (m) => `${m} ${openApiPath(r.path)}`,
          ),
        ),
    );
    const inDoc = new Set(documented(doc));
    expect(routes.size).toBeGreaterThanOrEqual(27);
    expect([...routes].filter((r) => !inDoc.has(r))).toEqual([]);
    expect([...inDoc].filter((r) => !routes.has(r))).toEqual([]);
  });

  it('is valid OpenAPI 3.1 (and a broken copy is not)', async () => {
    const validator = new Validator();
    const ok = await validator.validate(structuredClone(doc));
    expect(ok.errors).toBeUndefined();
    expect(ok.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const broken = structuredClone(doc);
    broken.paths['/v1/me/grid/moves'].post.parameters.push({ name: 'x', schema: {} }); // no `in`
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents auth, the headers, the cursor, decimal-string IDs and an example everywhere', () => {
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        if (method === 'head') continue; // its GET's, without content (the unit test holds it)
        const where = `${method} ${path}`;
        const params = (op.parameters ?? []) as Json[];
        const refs = params.map((p) => p.$ref).filter(Boolean);
        if (path.startsWith('/v1/me/')) expect(op.security, where).toEqual([{ bearerAuth: [] }]);
        if (path.startsWith('/v1/admin/')) expect(op.security, where).toEqual([{ adminToken: [] }]);
        if (path.startsWith('/v1/me/') && method !== 'get')
          expect(refs, where).toContain('#/components/parameters/IdempotencyKey');
        for (const p of params.filter((x) => x.in === 'path' && /^(post|profile)_id$/.test(x.name)))
          expect(p.schema.pattern, `${where} ${p.name}`).toBe('^[1-9][0-9]{0,18}$');
        const ok = Object.entries(op.responses as Json).find(([s]) => s.startsWith('2'))!;
        const json = ok[1].content['application/json'];
        if (json?.schema && Object.keys(json.schema).length)
          expect(json.example, where).toBeDefined();
        if (op.requestBody)
          expect(op.requestBody.content['application/json'].example).toBeDefined();
        for (const [status, res] of Object.entries(op.responses as Json)) {
          if (/^[45]/.test(status) && !(path === '/readyz' && status === '503'))
            expect(Object.keys(res.content), `${where} ${status}`).toEqual([
              'application/problem+json',
            ]);
        }
      }
    }
    const patch = doc.paths['/v1/me/grid/order'].patch;
    expect(patch.parameters.map((p: Json) => p.$ref)).toContain('#/components/parameters/IfMatch');
    expect(Object.keys(patch.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '409', '412', '413', '422', '428', '503']),
    );
    expect(patch.responses['200'].headers.ETag).toBeDefined();
    const read = doc.paths['/v1/profiles/{profile_id}/grid'].get;
    expect(read.parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['profile_id', 'limit', 'cursor', 'min_version']),
    );
    const move = doc.paths['/v1/me/grid/moves'].post.responses['409'];
    expect(move.content['application/problem+json'].schema.properties.type.enum).toEqual(
      expect.arrayContaining([
        'https://regrid.dev/problems/post_pinned',
        'https://regrid.dev/problems/anchor_not_on_grid',
      ]),
    );
    const moveBody = doc.paths['/v1/me/grid/moves'].post.requestBody.content['application/json'];
    expect(moveBody.schema.properties.post_id.pattern).toBe('^[1-9][0-9]{0,18}$');
  });

  it('serves the docs page and its assets from node_modules', async () => {
    const page = await api.app.request('/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('src="docs/swagger-ui-bundle.js"'); // relative: works under a mount prefix
    expect(html).not.toMatch(/https?:\/\//); // nothing from a CDN
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
      const r = await api.app.request(`/docs/${asset}`);
      expect(r.status, asset).toBe(200);
      expect((await r.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    expect((await api.app.request('/docs/package.json')).status).toBe(404);
  });
});

describe('real replies', () => {
  it('match the documented statuses, headers and schemas', async () => {
    const contract = new Contract(doc);
    const mismatches: string[] = [];
    const hit: Api['request'] = async (method, path, opts) => {
      const r = await api.request(method, path, opts);
      mismatches.push(...contract.check(method, path, r));
      return r;
    };
    const me = randomProfile();
    const friend = randomProfile();
    const as = { as: me };

    const ids: string[] = [];
    for (const caption of ['a', 'b', 'c', 'd', 'e']) {
      const r = await hit('POST', '/v1/me/posts', { ...as, body: { caption } });
      expect(r.status).toBe(201);
      ids.push(r.json.post.id);
    }
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const duet = await hit('POST', '/v1/me/posts', {
      ...as,
      body: {
        caption: 'duet',
        media_url: 'https://cdn.example/d.jpg',
        collaborators: [String(friend)],
      },
    });
    expect(duet.status).toBe(201);
    const duetId: string = duet.json.post.id;
    const trio = await hit('POST', '/v1/me/posts', {
      ...as,
      body: { collaborators: [String(friend)] },
    });

    // Reads: a post, pages by cursor, media, problems of input.
    expect((await hit('GET', `/v1/posts/${a}`)).status).toBe(200);
    expect((await hit('GET', '/v1/posts/1')).status).toBe(404);
    expect((await hit('GET', '/v1/posts/007')).status).toBe(400);
    const p1 = await hit('GET', `/v1/profiles/${me}/grid?limit=2`);
    expect(p1.json.next_cursor).toBeTruthy();
    expect(
      (
        await hit(
          'GET',
          `/v1/profiles/${me}/grid?limit=2&cursor=${encodeURIComponent(p1.json.next_cursor)}`,
        )
      ).status,
    ).toBe(200);
    expect((await hit('GET', `/v1/profiles/${me}/grid?cursor=forged`)).status).toBe(400);
    expect((await hit('GET', `/v1/profiles/${me}/media?limit=2`)).status).toBe(200);

    // Moves, undo, pins, their problems, Idempotency-Key.
    const key = { 'idempotency-key': '"api-test-move-1"' };
    const m = await hit('POST', '/v1/me/grid/moves', {
      ...as,
      body: { post_id: a, after: null },
      headers: key,
    });
    expect(m.status).toBe(200);
    const replay = await hit('POST', '/v1/me/grid/moves', {
      ...as,
      body: { post_id: a, after: null },
      headers: key,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(
      (
        await hit('POST', '/v1/me/grid/moves', {
          ...as,
          body: { post_id: b, after: null },
          headers: key,
        })
      ).status,
    ).toBe(422);
    expect(
      (await hit('POST', '/v1/me/grid/moves', { body: { post_id: a, after: null } })).status,
    ).toBe(401);
    expect((await hit('POST', `/v1/me/grid/moves/${m.json.move_id}/undo`, as)).status).toBe(200);
    expect(
      (await hit('POST', '/v1/me/grid/moves/0f7d3c1e-5b0a-4d3e-9a55-2f1c9e8b7a61/undo', as)).status,
    ).toBe(404);
    expect((await hit('POST', '/v1/me/grid/moves/nope/undo', as)).status).toBe(400);
    expect((await hit('PUT', '/v1/me/grid/pins', { ...as, body: { post_ids: [e] } })).status).toBe(
      200,
    );
    expect(
      (await hit('PUT', '/v1/me/grid/pins', { ...as, body: { post_ids: [a, b, c, d] } })).status,
    ).toBe(400);
    expect(
      (await hit('POST', '/v1/me/grid/moves', { ...as, body: { post_id: e, after: null } })).status,
    ).toBe(409);
    expect(
      (await hit('POST', '/v1/me/grid/moves', { ...as, body: { post_id: a, after: '1' } })).status,
    ).toBe(409);
    expect((await hit('POST', '/v1/me/grid/reset', as)).status).toBe(200);

    // The order resource: ETag, 304, 428, 412, 200.
    const order = await hit('GET', '/v1/me/grid/order', as);
    const etag = order.headers.get('etag')!;
    expect(
      (await hit('GET', '/v1/me/grid/order', { ...as, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    const reversed = { post_ids: [...order.json.post_ids].reverse() };
    expect((await hit('PATCH', '/v1/me/grid/order', { ...as, body: reversed })).status).toBe(428);
    expect(
      (
        await hit('PATCH', '/v1/me/grid/order', {
          ...as,
          body: reversed,
          headers: { 'if-match': '"1.1"' },
        })
      ).status,
    ).toBe(412);
    expect(
      (
        await hit('PATCH', '/v1/me/grid/order', {
          ...as,
          body: reversed,
          headers: { 'if-match': etag },
        })
      ).status,
    ).toBe(200);

    // Archive, invitations, collaborators, delete.
    expect((await hit('POST', `/v1/me/posts/${b}/archive`, as)).status).toBe(200);
    expect((await hit('GET', '/v1/me/archive?limit=5', as)).status).toBe(200);
    expect(
      (
        await hit('POST', `/v1/me/posts/${b}/unarchive`, {
          ...as,
          body: { position: 'chronological' },
        })
      ).status,
    ).toBe(200);
    expect((await hit('GET', '/v1/me/invites', { as: friend })).json.data).toHaveLength(2);
    expect((await hit('POST', `/v1/me/invites/${duetId}/accept`, { as: friend })).status).toBe(200);
    expect(
      (await hit('POST', `/v1/me/invites/${trio.json.post.id}/decline`, { as: friend })).status,
    ).toBe(200);
    expect((await hit('POST', `/v1/me/invites/${a}/decline`, { as: friend })).status).toBe(404);
    const block = await hit('PUT', `/v1/me/blocks/${me}`, { as: friend });
    expect(block.json).toEqual({ profile_id: String(me), blocked: true, invites_dropped: 0 });
    expect((await hit('PUT', `/v1/me/blocks/${friend}`, { as: friend })).status).toBe(400);
    const blocked = await hit('POST', '/v1/me/posts', {
      ...as,
      body: { collaborators: [String(friend)] },
    });
    expect(blocked.json.not_invited).toEqual([
      { profile_id: String(friend), reason: 'not_delivered' },
    ]);
    expect((await hit('DELETE', `/v1/me/blocks/${me}`, { as: friend })).status).toBe(200);
    expect((await hit('DELETE', `/v1/me/posts/${duetId}/collaborators/${friend}`, as)).status).toBe(
      200,
    );
    expect((await hit('DELETE', `/v1/me/posts/${c}`, { as: friend })).status).toBe(403);
    expect((await hit('DELETE', `/v1/me/posts/${c}`, as)).status).toBe(200);
    expect(
      (
        await hit('POST', '/v1/me/posts', {
          ...as,
          raw: JSON.stringify({ caption: 'x'.repeat(20_000) }),
        })
      ).status,
    ).toBe(413);

    // A platform's own post by its ID (service token): registered, again, another body, deleted.
    const own = (BigInt(a) - 1n).toString(); // an ID in the layout, just older than a
    const ownPath = `/v1/profiles/${me}/posts/${own}`;
    const svc = { service: 'post-service' };
    expect((await hit('PUT', ownPath, { ...svc, body: { caption: 'own' } })).status).toBe(201);
    expect((await hit('PUT', ownPath, { ...svc, body: { caption: 'own' } })).status).toBe(200);
    expect((await hit('PUT', ownPath, { ...svc, body: { caption: 'other' } })).status).toBe(409);
    expect((await hit('PUT', ownPath, { ...as, body: {} })).status).toBe(401);
    expect((await hit('DELETE', ownPath, svc)).status).toBe(200);
    // A platform sets a profile's home region (docs/regions.md), on a grid of its own.
    const homePath = `/v1/profiles/${BigInt(me) + 1n}/home-region`;
    expect((await hit('PUT', homePath, { ...svc, body: { region: 'dc1' } })).status).toBe(200);
    expect((await hit('PUT', homePath, { ...svc, body: { region: '' } })).status).toBe(400);

    // The change log: the last two versions' changes, and a malformed after_version.
    const atVersion = BigInt(
      (await hit('GET', `/v1/profiles/${me}/grid?limit=1`)).json.grid_version,
    );
    const changes = await hit(
      'GET',
      `/v1/profiles/${me}/grid/changes?after_version=${atVersion - 2n}&limit=5`,
    );
    expect(changes.status).toBe(200);
    expect(changes.json.changes).toHaveLength(2);
    expect((await hit('GET', `/v1/profiles/${me}/grid/changes?after_version=x`)).status).toBe(400);

    // Moderation and flags (ADMIN_TOKEN), probes.
    expect((await hit('POST', `/v1/admin/posts/${d}/takedown`, { admin: true })).status).toBe(200);
    expect((await hit('POST', `/v1/admin/posts/${d}/takedown`, as)).status).toBe(401);
    expect((await hit('GET', '/v1/admin/flags', { admin: true })).status).toBe(200);
    expect(
      (await hit('PUT', '/v1/admin/flags/writes.reorder', { admin: true, body: { enabled: true } }))
        .status,
    ).toBe(200);
    expect(
      (await hit('PUT', '/v1/admin/flags/nope', { admin: true, body: { enabled: true } })).status,
    ).toBe(404);
    for (const path of ['/healthz', '/readyz']) expect((await hit('GET', path)).status).toBe(200);
    expect((await hit('POST', '/dev/token')).status).toBe(200);
    // HEAD: the GET route's status and headers (the ETag), no body.
    const headPage = await hit('HEAD', `/v1/profiles/${me}/grid`);
    expect(headPage.status).toBe(200);
    expect(headPage.json).toBeUndefined();

    expect(mismatches).toEqual([]);
    // Every operation's success was seen, except the three that answer no JSON to check.
    const okSeen = new Set(
      [...contract.seen].filter((s) => / 2\d\d$/.test(s)).map((s) => s.replace(/ \d+$/, '')),
    );
    const notSeen = documented(doc).filter((r) => !okSeen.has(r) && !r.startsWith('HEAD '));
    expect(notSeen.sort()).toEqual([
      'GET /docs',
      'GET /docs/{asset}',
      'GET /metrics',
      'GET /openapi.json',
    ]);
  });

  it('a reply that breaks its schema is caught (the check can fail)', () => {
    const contract = new Contract(doc);
    const headers = new Headers({
      'content-type': 'application/json',
      etag: '"AAAAAAAAAAAAAAAAAAAAAA"',
    });
    const bad = { items: [], next_cursor: null, grid_version: 9, grid_changed: false };
    expect(
      contract.check('GET', '/v1/profiles/42/grid', { status: 200, headers, json: bad }),
    ).toHaveLength(1);
    expect(
      contract.check('GET', '/v1/profiles/42/grid', { status: 418, headers, json: {} }),
    ).toHaveLength(1);
    const problem = new Headers({ 'content-type': 'application/problem+json' });
    const wrongType = {
      type: 'https://regrid.dev/problems/post_pinned',
      title: 't',
      status: 404,
      code: 'post_pinned',
    };
    expect(
      contract.check('GET', '/v1/posts/42', { status: 404, headers: problem, json: wrongType }),
    ).toHaveLength(1);
  });
});
