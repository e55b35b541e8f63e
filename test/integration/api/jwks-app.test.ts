/**
 * The app as the server wires it from its configuration (`appSettingsOf`) with AUTH_JWKS_URL set,
 * against a real local key endpoint (support/jwks-provider.ts) and the shared Cassandra: a user
 * with a provider's ES256 or RS256 token creates, moves and reads; the provider rotates its key;
 * a platform service calls the service routes with its own audience; HS256 tokens, even with the
 * configured secret, are refused; and a provider that cannot be reached before any key set was
 * fetched answers 503 with Retry-After. Every reply is checked against the OpenAPI document
 * (support/http.ts).
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSettingsOf, createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { JWT_SECRET, openCore, randomProfile, type Core } from '../core/harness.js';
import { requestJson } from '../support/http.js';
import { mint, openProvider, signingKey, type Provider, type SigningKey } from '../support/jwks-provider.js'; // prettier-ignore

const ISSUER = 'https://idp.test/realms/regrid';
const settings = {
  AUTH_JWT_ISSUER: ISSUER,
  AUTH_JWT_AUDIENCE: 'regrid-api',
  AUTH_SERVICE_JWT_AUDIENCE: 'regrid-services',
  AUTH_JWKS_COOLDOWN_MS: '0',
};

let core: Core;
let provider: Provider;
let app: Hono<AppEnv>;
let ec: SigningKey;
let rsa: SigningKey;

const appOf = (c: Core) =>
  createApp({
    service: c.service,
    jwtSecret: JWT_SECRET,
    ...appSettingsOf(c.config),
    bodyLimitBytes: c.config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(c.client), redis: c.redis }),
  });

beforeAll(async () => {
  [ec, rsa] = await Promise.all([signingKey('ES256', 'ec-1'), signingKey('RS256', 'rsa-1')]);
  provider = await openProvider([ec, rsa]);
  core = await openCore({ ...settings, AUTH_JWKS_URL: provider.url });
  app = appOf(core);
});

afterAll(async () => {
  await provider?.close();
  await core?.close();
});

const claims = (aud: string, sub: string) => {
  const now = Math.floor(Date.now() / 1000);
  return { iss: ISSUER, aud, sub, iat: now - 5, exp: now + 600 };
};
const userToken = (key: SigningKey, me: bigint) => mint(key, claims('regrid-api', String(me)));

const hit = (method: string, path: string, token?: string, body?: unknown) =>
  requestJson(
    app,
    method,
    path,
    token ? { authorization: `Bearer ${token}` } : {},
    body === undefined ? undefined : JSON.stringify(body),
  );

describe('user tokens from the provider', () => {
  it('create, move and read with ES256 and RS256 tokens; the key rotates mid-run', async () => {
    const me = randomProfile();
    const es = await userToken(ec, me);
    const ids: string[] = [];
    for (const caption of ['a', 'b', 'c']) {
      const r = await hit('POST', '/v1/me/posts', es, { caption });
      expect(r.status).toBe(201);
      ids.push(r.json.post.id);
    }
    const rs = await userToken(rsa, me);
    const moved = await hit('POST', '/v1/me/grid/moves', rs, { post_id: ids[0], after: null });
    expect(moved.status).toBe(200);
    const page = await hit('GET', `/v1/profiles/${me}/grid`);
    expect(page.json.items.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[2], ids[1]]);

    // The provider publishes a new key and signs with it; the old key stays published.
    const next = await signingKey('ES256', 'ec-2');
    provider.publish([ec, next, rsa]);
    const hits = provider.hits;
    const fresh = await userToken(next, me);
    expect((await hit('POST', '/v1/me/grid/moves', fresh, { post_id: ids[1], after: null })).status).toBe(200); // prettier-ignore
    expect(provider.hits).toBe(hits + 1);
    expect((await hit('POST', '/v1/me/grid/moves', es, { post_id: ids[2], after: null })).status).toBe(200); // prettier-ignore
  });

  it('refuses HS256 tokens (even with the configured secret), forged and foreign tokens', async () => {
    const me = randomProfile();
    const cases = [
      await issueToken(JWT_SECRET, me),
      await mint(await signingKey('ES256', 'ec-1'), claims('regrid-api', String(me))),
      await mint(ec, { ...claims('regrid-api', String(me)), iss: 'https://elsewhere.test/' }),
      await mint(ec, claims('regrid-services', String(me))),
    ];
    for (const token of cases) {
      const r = await hit('GET', '/v1/me/grid', token);
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.json.code).toBe('unauthorized');
    }
  });
});

describe('the owner-only reads with provider tokens', () => {
  it("an archived post and the changes route's private form answer the owner's provider token", async () => {
    const me = randomProfile();
    const es = await userToken(ec, me);
    const created = await hit('POST', '/v1/me/posts', es, { caption: 'kept for me' });
    expect(created.status).toBe(201);
    const id = created.json.post.id as string;
    expect((await hit('POST', `/v1/me/posts/${id}/archive`, es)).status).toBe(200);
    expect((await hit('GET', `/v1/posts/${id}`)).status).toBe(404);
    const stranger = await userToken(ec, randomProfile());
    expect((await hit('GET', `/v1/posts/${id}`, stranger)).status).toBe(404);
    const mine = await hit('GET', `/v1/posts/${id}`, es);
    expect([mine.status, mine.json.id ?? mine.json.post?.id]).toEqual([200, id]);
    const changes = await hit('GET', `/v1/profiles/${me}/grid/changes?after_version=0`, es);
    expect(changes.status).toBe(200);
    expect(JSON.stringify(changes.json)).toContain(id);
  });
});

describe('service tokens from the provider', () => {
  it('the service audience registers a platform post; a user token is refused there', async () => {
    const me = randomProfile();
    const post = await hit('POST', '/v1/me/posts', await userToken(ec, me), {});
    const own = (BigInt(post.json.post.id) - 1n).toString();
    const path = `/v1/profiles/${me}/posts/${own}`;
    const service = await mint(rsa, claims('regrid-services', 'post-service'));
    expect((await hit('PUT', path, service, { caption: 'own' })).status).toBe(201);
    expect((await hit('PUT', path, await userToken(ec, me), { caption: 'own' })).status).toBe(401);
  });
});

describe('the provider unreachable', () => {
  it('before any key set was fetched: 503 with Retry-After, not 401 or 500', async () => {
    const down = await openProvider([ec]);
    const url = down.url;
    await down.close(); // the port now refuses connections
    const other = await openCore({ ...settings, AUTH_JWKS_URL: url, AUTH_JWKS_COOLDOWN_MS: '5000' }); // prettier-ignore
    try {
      const r = await requestJson(appOf(other), 'GET', '/v1/me/grid', {
        authorization: `Bearer ${await userToken(ec, randomProfile())}`,
      });
      expect(r.status).toBe(503);
      expect(r.json.code).toBe('unavailable');
      expect(r.headers.get('retry-after')).toBe('5');
    } finally {
      await other.close();
    }
  });
});
