/**
 * Service tokens (src/http/service-auth.ts) against user tokens (src/http/auth.ts), through a
 * minimal Hono app with both real middlewares and the real problem mapping, at a fixed clock.
 * Tokens are signed with hono/jwt (an independent signer). Covers: the happy path, forged and
 * tampered tokens, the scope claim in both directions, equal secrets refused by the config, and
 * the routes being off without a secret.
 */
import fc from 'fast-check';
import { Hono } from 'hono';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { requireProfile } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { onError } from '../../../src/http/problem.js';
import { issueServiceToken, requireService } from '../../../src/http/service-auth.js';

const USER_SECRET = 'unit-user-secret-0123456789abcdef';
const SERVICE_SECRET = 'unit-service-secret-0123456789abcd';
const NOW = 1_790_000_000;
const POLICY = { maxLifetimeS: 86_400, clockSkewS: 30 };

function app(serviceSecret: string | undefined = SERVICE_SECRET) {
  const a = new Hono<AppEnv>();
  a.onError(onError());
  a.use(
    '/me',
    requireProfile(USER_SECRET, POLICY, () => NOW),
  );
  a.use(
    '/svc',
    requireService(serviceSecret, POLICY, () => NOW),
  );
  a.get('/me', (c) => c.json({ profile: c.get('profileId').toString() }));
  a.get('/svc', (c) => c.json({ service: c.get('serviceName') }));
  return a;
}

async function call(path: '/me' | '/svc', token: string, serviceSecret?: string) {
  const res = await app(serviceSecret).request(path, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) expect(res.headers.get('content-type')).toBe('application/problem+json');
  return { status: res.status, body };
}

const times = { iat: NOW - 10, exp: NOW + 600 };
const serviceClaims = { sub: 'post-service', scope: 'service', ...times };

describe('service tokens', () => {
  it('a service token signed with the service secret names its service', async () => {
    const token = await sign(serviceClaims, SERVICE_SECRET, 'HS256');
    expect(await call('/svc', token)).toEqual({ status: 200, body: { service: 'post-service' } });
  });

  it('issueServiceToken makes a token the middleware accepts (real clock)', async () => {
    const a = new Hono<AppEnv>();
    a.onError(onError());
    a.use('/svc', requireService(SERVICE_SECRET));
    a.get('/svc', (c) => c.text(c.get('serviceName')));
    const res = await a.request('/svc', {
      headers: { authorization: `Bearer ${issueServiceToken(SERVICE_SECRET, 'importer')}` },
    });
    expect([res.status, await res.text()]).toEqual([200, 'importer']);
  });

  it('a user token is refused on a service route, and a service token as a user', async () => {
    const user = await sign({ sub: '42', ...times }, USER_SECRET, 'HS256');
    expect((await call('/me', user)).status).toBe(200);
    expect((await call('/svc', user)).status).toBe(401); // wrong secret
    // Even signed with the service secret, a token without the scope is not a service token.
    const unscoped = await sign({ sub: 'post-service', ...times }, SERVICE_SECRET, 'HS256');
    expect((await call('/svc', unscoped)).body.code).toBe('unauthorized');
    const service = await sign(serviceClaims, SERVICE_SECRET, 'HS256');
    expect((await call('/me', service)).status).toBe(401); // wrong secret
    // Even signed with the user secret, a scoped token never acts as a profile.
    const scopedUser = await sign({ sub: '42', scope: 'service', ...times }, USER_SECRET, 'HS256');
    expect((await call('/me', scopedUser)).status).toBe(401);
  });

  it('refuses tampered payloads, other scopes, bad subjects and expired tokens', async () => {
    const good = await sign(serviceClaims, SERVICE_SECRET, 'HS256');
    const [h, , s] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ ...serviceClaims, sub: 'root' })).toString(
      'base64url',
    );
    expect((await call('/svc', `${h}.${forged}.${s}`)).status).toBe(401);
    for (const extra of [
      { scope: 'admin' },
      { scope: ['service'] },
      { sub: '' },
      { sub: 'has space' },
      { sub: 42 },
      { exp: NOW - 60 },
      { iat: NOW + 600, exp: NOW + 900 },
    ]) {
      const token = await sign({ ...serviceClaims, ...extra }, SERVICE_SECRET, 'HS256');
      expect((await call('/svc', token)).status, JSON.stringify(extra)).toBe(401);
    }
  });

  it('any other secret is refused (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 16, maxLength: 40 }), async (secret) => {
        fc.pre(secret !== SERVICE_SECRET);
        const token = await sign(serviceClaims, secret, 'HS256');
        expect((await call('/svc', token)).status).toBe(401);
      }),
      { numRuns: 50, seed: 20261202 },
    );
  });

  it('without AUTH_SERVICE_JWT_SECRET the service routes answer 403', async () => {
    const token = await sign(serviceClaims, SERVICE_SECRET, 'HS256');
    const res = await call('/svc', token, '');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });

  it('the configuration refuses one secret for both kinds', () => {
    const env = { AUTH_JWT_SECRET: USER_SECRET, AUTH_SERVICE_JWT_SECRET: USER_SECRET };
    expect(() => loadConfig(env)).toThrow(/AUTH_SERVICE_JWT_SECRET: must differ/);
    const ok = loadConfig({ ...env, AUTH_SERVICE_JWT_SECRET: SERVICE_SECRET });
    expect(ok.AUTH_SERVICE_JWT_SECRET).toBe(SERVICE_SECRET);
  });
});
