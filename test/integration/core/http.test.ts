/**
 * The core HTTP contract end to end on the real Cassandra: create → move → read, and every
 * status code the routes promise (400, 401, 403, 404, 409, 413), each as problem+json.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { collectProcessMetrics } from '../../../src/obs/registry.js';
import type { Cql } from '../../../src/store/cassandra.js';
import {
  JWT_SECRET,
  call,
  openCore,
  randomProfile,
  seedGrid,
  tokenFor,
  type Core,
} from './harness.js';
import { openPerFile } from '../support/per-file.js';

let core: Core;
openPerFile(openCore, (opened) => (core = opened));

const gridIds = async (profileId: bigint, limit = 100) => {
  const r = await call(core, 'GET', `/v1/profiles/${profileId}/grid?limit=${limit}`);
  expect(r.status).toBe(200);
  return (r.json.items as Array<{ id: string }>).map((i) => i.id);
};

const expectProblem = (
  r: { status: number; headers: Headers; json: any },
  status: number,
  code: string,
) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(r.json.type).toBe(`https://regrid.dev/problems/${code}`);
  expect(r.json.status).toBe(status);
};

describe('create → move → read', () => {
  it('shows a moved post in its new place and bumps grid_version each time', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const created: string[] = [];
    let lastVersion = 0n;
    for (const caption of ['a', 'b', 'c', 'd']) {
      const r = await call(core, 'POST', '/v1/me/posts', { token, body: { caption } });
      expect(r.status).toBe(201);
      expect(r.json.post.caption).toBe(caption);
      expect(r.json.post.id).toMatch(/^[0-9]+$/);
      expect(BigInt(r.json.grid_version)).toBeGreaterThan(lastVersion);
      lastVersion = BigInt(r.json.grid_version);
      created.push(r.json.post.id);
    }
    const [a, b, c, d] = created as [string, string, string, string];
    expect(await gridIds(me)).toEqual([d, c, b, a]); // newest first

    const m1 = await call(core, 'POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: a, after: null },
    });
    expect(m1.status).toBe(200);
    expect(BigInt(m1.json.grid_version)).toBe(lastVersion + 1n);
    expect(await gridIds(me)).toEqual([a, d, c, b]);

    const m2 = await call(core, 'POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: d, after: b },
    });
    expect(m2.status).toBe(200);
    expect(await gridIds(me)).toEqual([a, c, b, d]);

    const page = await call(core, 'GET', `/v1/profiles/${me}/grid`);
    expect(page.json.grid_version).toBe(m2.json.grid_version);
    expect(page.json.next_cursor).toBeNull();
    expect(Object.keys(page.json.items[0]).sort()).toEqual([
      'caption',
      'created_at',
      'id',
      'media_url',
    ]);

    const one = await call(core, 'GET', `/v1/posts/${a}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: a, author_id: me.toString(), caption: 'a' });
  });

  it('a new post lands on top even after a move to the top; delete removes it and bumps', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const ids = (await seedGrid(core, me, 5)).map(String);
    await call(core, 'POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: ids[4], after: null },
    });
    const fresh = await call(core, 'POST', '/v1/me/posts', { token, body: {} });
    expect(fresh.status).toBe(201);
    const order = await gridIds(me);
    expect(order[0]).toBe(fresh.json.post.id);
    expect(order[1]).toBe(ids[4]);

    const del = await call(core, 'DELETE', `/v1/me/posts/${ids[4]}`, { token });
    expect(del.status).toBe(200);
    expect(BigInt(del.json.grid_version)).toBe(BigInt(fresh.json.grid_version) + 1n);
    expect(await gridIds(me)).toEqual([fresh.json.post.id, ids[0], ids[1], ids[2], ids[3]]);
    const gone = await call(core, 'GET', `/v1/posts/${ids[4]}`);
    expectProblem(gone, 404, 'post_not_found');
  });

  it('pages with a signed cursor: limit, next_cursor, then the rest', async () => {
    const me = randomProfile();
    const ids = (await seedGrid(core, me, 7)).map(String);
    const p1 = await call(core, 'GET', `/v1/profiles/${me}/grid?limit=3`);
    expect(p1.json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 3));
    expect(typeof p1.json.next_cursor).toBe('string');
    const p2 = await call(
      core,
      'GET',
      `/v1/profiles/${me}/grid?limit=3&cursor=${p1.json.next_cursor}`,
    );
    expect(p2.json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(3, 6));
    const p3 = await call(
      core,
      'GET',
      `/v1/profiles/${me}/grid?limit=3&cursor=${p2.json.next_cursor}`,
    );
    expect(p3.json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(6));
    expect(p3.json.next_cursor).toBeNull();
  });
});

describe('status codes', () => {
  it('400: after == post_id, malformed JSON, unknown field, out-of-range and non-string IDs', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const [p] = (await seedGrid(core, me, 2)).map(String);
    const before = await call(core, 'GET', `/v1/profiles/${me}/grid`);

    const cases: Array<{ rawBody?: string; body?: unknown }> = [
      { body: { post_id: p, after: p } },
      { rawBody: '{"post_id": ' },
      { rawBody: '' },
      { body: { post_id: p, after: null, extra: 1 } },
      { body: { post_id: '9223372036854775808', after: null } }, // 2^63
      { body: { post_id: '0', after: null } },
      { body: { post_id: Number(p), after: null } }, // a JSON number loses 64-bit precision
      { body: { post_id: p } }, // `after` is required (null = top)
      { body: [p] },
    ];
    for (const c of cases) {
      const r = await call(core, 'POST', '/v1/me/grid/moves', { token, ...c });
      expectProblem(r, 400, 'invalid_request');
    }
    expectProblem(
      await call(core, 'POST', '/v1/me/posts', { token, body: { caption: 'x', nope: true } }),
      400,
      'invalid_request',
    );
    expectProblem(await call(core, 'GET', '/v1/posts/12abc'), 400, 'invalid_request');
    expectProblem(
      await call(core, 'GET', '/v1/posts/99999999999999999999'),
      400,
      'invalid_request',
    );
    expectProblem(
      await call(core, 'GET', `/v1/profiles/${me}/grid?limit=0`),
      400,
      'invalid_request',
    );
    expectProblem(
      await call(core, 'GET', `/v1/profiles/${me}/grid?limit=101`),
      400,
      'invalid_request',
    );
    expectProblem(
      await call(core, 'GET', `/v1/profiles/${me}/grid?bogus=1`),
      400,
      'invalid_request',
    );

    // Nothing was written by any rejected request.
    const after = await call(core, 'GET', `/v1/profiles/${me}/grid`);
    expect(after.json.grid_version).toBe(before.json.grid_version);
    expect(after.json.items).toEqual(before.json.items);
  });

  it('400: IDs that are not canonical decimal, in paths and bodies; nothing written', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const [p, q] = (await seedGrid(core, me, 2)).map(String);
    const before = await call(core, 'GET', `/v1/profiles/${me}/grid`);
    // Each spelling denotes a real ID; only the canonical one may be accepted.
    const spellings = (id: string) => [`0${id}`, `%2B${id}`, `%20${id}`, `${id}%20`, `${id}%0A`];
    for (const s of spellings(me.toString())) {
      expectProblem(await call(core, 'GET', `/v1/profiles/${s}/grid`), 400, 'invalid_request');
    }
    for (const s of spellings(p!)) {
      expectProblem(await call(core, 'GET', `/v1/posts/${s}`), 400, 'invalid_request');
      expectProblem(
        await call(core, 'DELETE', `/v1/me/posts/${s}`, { token }),
        400,
        'invalid_request',
      );
    }
    for (const bad of [`0${p}`, `+${p}`, ` ${p}`, `${p} `, `${p}\n`, '00']) {
      for (const body of [
        { post_id: bad, after: null },
        { post_id: q, after: bad },
      ]) {
        expectProblem(
          await call(core, 'POST', '/v1/me/grid/moves', { token, body }),
          400,
          'invalid_request',
        );
      }
    }
    const after = await call(core, 'GET', `/v1/profiles/${me}/grid`);
    expect(after.json.grid_version).toBe(before.json.grid_version);
    expect(after.json.items).toEqual(before.json.items);
  });

  it('400: a tampered or foreign cursor is bad_cursor', async () => {
    const me = randomProfile();
    await seedGrid(core, me, 3);
    const p1 = await call(core, 'GET', `/v1/profiles/${me}/grid?limit=1`);
    const token: string = p1.json.next_cursor;
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    expectProblem(
      await call(core, 'GET', `/v1/profiles/${me}/grid?cursor=${flipped}`),
      400,
      'bad_cursor',
    );
    expectProblem(
      await call(core, 'GET', `/v1/profiles/${me}/grid?cursor=not-a-cursor`),
      400,
      'bad_cursor',
    );
  });

  it('401: missing, malformed, wrongly signed, subject-less, exp-less, too long-lived or re-spelled tokens', async () => {
    const body = { post_id: '1', after: null };
    const r1 = await call(core, 'POST', '/v1/me/grid/moves', { body });
    expectProblem(r1, 401, 'unauthorized');
    expect(r1.headers.get('www-authenticate')).toBe('Bearer');
    expectProblem(
      await call(core, 'POST', '/v1/me/grid/moves', { body, token: 'abc' }),
      401,
      'unauthorized',
    );
    const { sign } = await import('hono/jwt');
    const foreign = await sign({ sub: '42' }, 'some-other-secret-0123456789', 'HS256');
    expectProblem(
      await call(core, 'POST', '/v1/me/posts', { body: {}, token: foreign }),
      401,
      'unauthorized',
    );
    const noSub = await sign({ iat: 1 }, JWT_SECRET, 'HS256');
    expectProblem(
      await call(core, 'POST', '/v1/me/posts', { body: {}, token: noSub }),
      401,
      'unauthorized',
    );
    const badSub = await sign({ sub: '-5' }, JWT_SECRET, 'HS256');
    expectProblem(
      await call(core, 'DELETE', '/v1/me/posts/1', { token: badSub }),
      401,
      'unauthorized',
    );
    // A valid subject is not enough: exp is required and the lifetime is bounded.
    const sub = randomProfile().toString();
    const now = Math.floor(Date.now() / 1000);
    const refused = [
      await sign({ sub, iat: now }, JWT_SECRET, 'HS256'),
      await sign({ sub, iat: now, exp: now + 30 * 24 * 3600 }, JWT_SECRET, 'HS256'),
      await sign({ sub, iat: now + 3600, exp: now + 7200 }, JWT_SECRET, 'HS256'),
    ];
    // The same signature bytes spelled with different unused low bits in the last character.
    const good = await tokenFor(BigInt(sub));
    const last = good.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    refused.push(good.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1]);
    for (const token of refused) {
      expectProblem(
        await call(core, 'POST', '/v1/me/posts', { body: {}, token }),
        401,
        'unauthorized',
      );
    }
    expect((await call(core, 'GET', `/v1/profiles/${sub}/grid`)).json.items).toEqual([]);
  });

  it('404: moving a post that is not on my grid; 403: deleting another author’s post', async () => {
    const me = randomProfile();
    const other = randomProfile();
    const token = await tokenFor(me);
    const [mine] = (await seedGrid(core, me, 2)).map(String);
    const [theirs] = (await seedGrid(core, other, 1)).map(String);
    expectProblem(
      await call(core, 'POST', '/v1/me/grid/moves', {
        token,
        body: { post_id: theirs, after: null },
      }),
      404,
      'post_not_on_grid',
    );
    expectProblem(
      await call(core, 'POST', '/v1/me/grid/moves', {
        token,
        body: { post_id: '123456789', after: mine },
      }),
      404,
      'post_not_on_grid',
    );
    expectProblem(
      await call(core, 'DELETE', `/v1/me/posts/${theirs}`, { token }),
      403,
      'forbidden',
    );
    expectProblem(
      await call(core, 'DELETE', `/v1/me/posts/123456789`, { token }),
      404,
      'post_not_found',
    );
    expectProblem(await call(core, 'GET', `/v1/posts/123456789`), 404, 'post_not_found');
    expectProblem(await call(core, 'GET', `/v1/nowhere`), 404, 'not_found');
  });

  it('409: the anchor is gone (deleted), with the current grid_version', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const [a, b] = (await seedGrid(core, me, 3)).map(String);
    const del = await call(core, 'DELETE', `/v1/me/posts/${b}`, { token });
    expect(del.status).toBe(200);
    const r = await call(core, 'POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: a, after: b },
    });
    expectProblem(r, 409, 'anchor_not_on_grid');
    expect(r.json.grid_version).toBe(del.json.grid_version);
  });

  it('413: bodies over BODY_LIMIT_BYTES are refused before parsing', async () => {
    const token = await tokenFor(randomProfile());
    const r = await call(core, 'POST', '/v1/me/posts', {
      token,
      body: { caption: 'x'.repeat(core.config.BODY_LIMIT_BYTES + 10) },
    });
    expectProblem(r, 413, 'payload_too_large');
  });

  it('GET /metrics renders the process registry in the Prometheus text format', async () => {
    collectProcessMetrics();
    const res = await core.app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/^# HELP process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('healthz answers; readyz probes the real stores and is 503 when Cassandra does not answer', async () => {
    expect((await call(core, 'GET', '/healthz')).status).toBe(200);
    const ready = await call(core, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toEqual({ cassandra: 'ok', redis: 'ok' });

    const deadCassandra: Cql = {
      execute: () => Promise.reject(new Error('no host available')),
      batch: () => Promise.reject(new Error('no host available')),
    };
    const degraded = createApp({
      service: core.service,
      jwtSecret: JWT_SECRET,
      bodyLimitBytes: 1024,
      readiness: makeReadiness({ cql: deadCassandra, redis: core.redis }),
    });
    const res = await degraded.request('/readyz');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, string> };
    expect(body.checks.cassandra).toBe('down');
  });
});
