/**
 * Tokens from an identity provider (src/http/jwks.ts, src/http/jwks-tokens.ts) against a real
 * local key endpoint (support/jwks-provider.ts: node:http serving keys made with jose here),
 * through a minimal Hono app with the real user and service middlewares and the real problem
 * mapping. The key set's clock and the token clock are one test clock, so ages, cooldowns and
 * stale bounds are stepped, not waited for; the provider's request count is what a test asserts
 * about fetches.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { exportSPKI, importJWK, type CryptoKey } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { requireProfile } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { KeySet } from '../../../src/http/jwks.js';
import { keySetTokens } from '../../../src/http/jwks-tokens.js';
import { onError } from '../../../src/http/problem.js';
import { requireService } from '../../../src/http/service-auth.js';
import {
  mint,
  openProvider,
  signingKey,
  type Provider,
  type SigningKey,
} from '../support/jwks-provider.js';

const ISSUER = 'https://idp.test/';
const USERS = 'regrid-api';
const SERVICES = 'regrid-services';
const POLICY = { maxLifetimeS: 86_400, clockSkewS: 30 };
const MAX_AGE_MS = 60_000;
const MAX_STALE_MS = 600_000;
const COOLDOWN_MS = 10_000;

let clockMs = Date.now();
const nowS = () => Math.floor(clockMs / 1000);

function appFor(url: string, timeoutMs = 2000) {
  const keys = new KeySet({
    url,
    maxAgeMs: MAX_AGE_MS,
    maxStaleMs: MAX_STALE_MS,
    cooldownMs: COOLDOWN_MS,
    timeoutMs,
    now: () => clockMs,
  });
  const common = { issuer: ISSUER, algorithms: ['RS256', 'ES256', 'EdDSA'] };
  const users = keySetTokens(
    keys,
    { ...common, audience: USERS, otherAudience: SERVICES, subjectClaim: 'sub' },
    POLICY,
  );
  const services = keySetTokens(
    keys,
    { ...common, audience: SERVICES, otherAudience: USERS, subjectClaim: 'azp' },
    POLICY,
  );
  const a = new Hono<AppEnv>();
  a.onError(onError());
  a.use(
    '/me',
    requireProfile(users, POLICY, () => clockMs / 1000),
  );
  a.use(
    '/svc',
    requireService(services, POLICY, () => clockMs / 1000),
  );
  a.get('/me', (c) => c.json({ profile: c.get('profileId').toString() }));
  a.get('/svc', (c) => c.json({ service: c.get('serviceName') }));
  return a;
}

type App = ReturnType<typeof appFor>;

async function call(app: App, path: '/me' | '/svc', token: string) {
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) expect(res.headers.get('content-type')).toBe('application/problem+json');
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

const userClaims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: USERS,
  sub: '4242',
  iat: nowS() - 5,
  exp: nowS() + 600,
  ...extra,
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

let rsa: SigningKey;
let ec: SigningKey;
let ed: SigningKey;
let provider: Provider;
let app: App;

beforeAll(async () => {
  [rsa, ec, ed] = await Promise.all([
    signingKey('RS256', 'rsa-1'),
    signingKey('ES256', 'ec-1'),
    signingKey('EdDSA', 'ed-1'),
  ]);
});

beforeEach(async () => {
  clockMs = Date.now();
  provider = await openProvider([rsa, ec, ed]);
  app = appFor(provider.url);
});

afterEach(() => provider.close());

describe('tokens signed by the provider', () => {
  it('RS256, ES256 and EdDSA tokens are accepted, with one fetch of the key set', async () => {
    for (const key of [rsa, ec, ed]) {
      const token = await mint(key, userClaims());
      expect(await call(app, '/me', token)).toMatchObject({ status: 200, body: { profile: '4242' } }); // prettier-ignore
    }
    expect(provider.hits).toBe(1);
  });

  it('a service token needs the service audience and names its service by its claim', async () => {
    const service = await mint(ec, { ...userClaims({ aud: SERVICES, sub: 'x@clients' }), azp: 'post-service' }); // prettier-ignore
    expect(await call(app, '/svc', service)).toMatchObject({ status: 200, body: { service: 'post-service' } }); // prettier-ignore
    // Neither kind stands in for the other, and a token for both audiences is neither.
    expect((await call(app, '/me', service)).status).toBe(401);
    const user = await mint(ec, { ...userClaims(), azp: 'post-service' });
    expect((await call(app, '/svc', user)).status).toBe(401);
    const both = await mint(ec, { ...userClaims({ aud: [USERS, SERVICES] }), azp: 'post-service' });
    expect((await call(app, '/me', both)).status).toBe(401);
    expect((await call(app, '/svc', both)).status).toBe(401);
  });
});

describe('refused tokens (401 problem+json)', () => {
  it('alg none, whatever its signature part', async () => {
    const none = `${b64({ alg: 'none', kid: rsa.kid })}.${b64(userClaims())}`;
    for (const token of [`${none}.`, `${none}.AAAA`]) {
      const res = await call(app, '/me', token);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
    expect((await call(app, '/me', `${none}.AAAA`)).body.detail).toMatch(/algorithm/);
  });

  it('HS256 "signed" with the provider\'s RSA public key as the HMAC secret (alg confusion)', async () => {
    const pem = await exportSPKI(
      (await importJWK({ ...rsa.jwk }, 'RS256', { extractable: true })) as CryptoKey,
    );
    for (const secret of [pem, pem.trim(), JSON.stringify(rsa.jwk)]) {
      const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: rsa.kid })}.${b64(userClaims())}`;
      const mac = createHmac('sha256', secret).update(input).digest('base64url');
      const res = await call(app, '/me', `${input}.${mac}`);
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/algorithm/);
    }
    // Nor can the configuration be talked into an HMAC algorithm for the key set.
    const env = { AUTH_JWKS_URL: provider.url, AUTH_JWT_ISSUER: ISSUER, AUTH_JWT_AUDIENCE: USERS };
    expect(() => loadConfig({}, { ...env, AUTH_JWT_ALGORITHMS: 'RS256,HS256' })).toThrow(/AUTH_JWT_ALGORITHMS/); // prettier-ignore
    expect(() => loadConfig({}, { ...env, AUTH_JWT_ALGORITHMS: 'none' })).toThrow(
      /AUTH_JWT_ALGORITHMS/,
    );
  });

  it('wrong iss, wrong aud, expired, over-long, without iat, and forged signatures', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['iss', { iss: 'https://other.test/' }],
      ['aud', { aud: 'someone-else' }],
      ['aud', { aud: undefined }],
      ['expired', { iat: nowS() - 900, exp: nowS() - 300 }],
      ['lifetime', { exp: nowS() + 2 * 86_400 }],
      ['iat', { iat: undefined }],
      ['profile claim', { sub: 'not-a-number' }],
    ];
    for (const [what, extra] of cases) {
      const res = await call(app, '/me', await mint(ec, userClaims(extra)));
      expect(res.status, what).toBe(401);
      expect(res.body.code, what).toBe('unauthorized');
    }
    // A key the provider never published, claiming a published kid.
    const impostor = { ...(await signingKey('ES256', ec.kid)) };
    expect((await call(app, '/me', await mint(impostor, userClaims()))).body.detail).toMatch(/signature/); // prettier-ignore
    // A real token whose payload was changed after signing.
    const [h, , s] = (await mint(rsa, userClaims())).split('.');
    expect((await call(app, '/me', `${h}.${b64(userClaims({ sub: '1' }))}.${s}`)).status).toBe(401);
  });
});

describe('key rotation', () => {
  it('a new key is fetched on sight; old tokens verify while the old key is published', async () => {
    const before = await mint(rsa, userClaims());
    expect((await call(app, '/me', before)).status).toBe(200);
    const next = await signingKey('RS256', 'rsa-2');
    provider.publish([rsa, next, ec, ed]);
    clockMs += COOLDOWN_MS + 1; // the last fetch is a cooldown ago
    expect((await call(app, '/me', await mint(next, userClaims()))).status).toBe(200);
    expect(provider.hits).toBe(2);
    expect((await call(app, '/me', before)).status).toBe(200);
    expect((await call(app, '/me', await mint(rsa, userClaims()))).status).toBe(200);

    // The provider retires the old key: once the set is fetched again (it is past its age, so
    // the next token fetches it in the background), tokens of the old key are refused although
    // they have not expired — a retired key may be a compromised one.
    provider.publish([next, ec, ed]);
    clockMs += MAX_AGE_MS + 1;
    // (the background fetch's time is the real one: on a busy machine more than poll's 1 s)
    await expect
      .poll(async () => (await call(app, '/me', before)).status, { timeout: 20_000 })
      .toBe(401);
    expect((await call(app, '/me', await mint(next, userClaims()))).status).toBe(200);
    expect(provider.hits).toBe(3);
  });

  it('an unknown kid fetches the set once per cooldown, not once per request', async () => {
    expect((await call(app, '/me', await mint(ec, userClaims()))).status).toBe(200);
    expect(provider.hits).toBe(1);
    clockMs += COOLDOWN_MS + 1;
    const stranger = await mint(await signingKey('ES256', 'never-published'), userClaims());
    const burst = await Promise.all(Array.from({ length: 10 }, () => call(app, '/me', stranger)));
    for (let i = 0; i < 10; i++) burst.push(await call(app, '/me', stranger));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(provider.hits).toBe(2);
    clockMs += COOLDOWN_MS + 1;
    expect((await call(app, '/me', stranger)).status).toBe(401);
    expect(provider.hits).toBe(3);
  });
});

describe('the provider down', () => {
  it('cached keys verify within the stale bound; past it, 503 with Retry-After', async () => {
    const token = await mint(ec, userClaims({ exp: nowS() + 3600 }));
    expect((await call(app, '/me', token)).status).toBe(200);
    await provider.stop();
    clockMs += MAX_AGE_MS + 1; // past its age: a fetch is tried, fails, and the set is kept
    expect((await call(app, '/me', token)).status).toBe(200);
    expect((await call(app, '/me', await mint(rsa, userClaims()))).status).toBe(200);
    clockMs += MAX_STALE_MS; // past age + stale bound
    const res = await call(app, '/me', await mint(ec, userClaims()));
    expect(res).toMatchObject({ status: 503, body: { code: 'unavailable' } });
    expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1);
    // Back up: after the cooldown the next token fetches the set and verifies.
    await provider.start();
    clockMs += COOLDOWN_MS + 1;
    expect((await call(app, '/me', await mint(ec, userClaims()))).status).toBe(200);
  });

  it('with no key set fetched yet, a down provider is 503 with Retry-After, not 401', async () => {
    await provider.stop();
    const hitsBefore = provider.hits;
    const token = await mint(ec, userClaims());
    const res = await call(app, '/me', token);
    expect(res).toMatchObject({ status: 503, body: { code: 'unavailable' } });
    expect(Number(res.retryAfter)).toBe(COOLDOWN_MS / 1000);
    // Within the cooldown nothing is fetched again: still 503, at once.
    expect((await call(app, '/svc', token)).status).toBe(503);
    expect(provider.hits).toBe(hitsBefore);
  });

  it('a provider that never answers is given up on after the fetch timeout (503)', async () => {
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const hung = appFor(`http://127.0.0.1:${port}/jwks`, 300);
      const res = await call(hung, '/me', await mint(ec, userClaims()));
      expect(res).toMatchObject({ status: 503, body: { code: 'unavailable' } });
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});

afterAll(() => provider?.close());
