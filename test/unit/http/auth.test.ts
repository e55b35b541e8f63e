/**
 * Bearer JWT rules of /v1/me/* (src/http/auth.ts), through a minimal Hono app with the real
 * middleware and problem mapping and a fixed clock. Tokens are signed here with hono/jwt (an
 * independent signer), so these tests do not trust the verifier's own encoder.
 */
import fc from 'fast-check';
import { Hono } from 'hono';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { issueToken, requireProfile } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { onError } from '../../../src/http/problem.js';

const SECRET = 'unit-auth-secret-0123456789abcdef';
const NOW = 1_790_000_000; // a fixed "now", Unix seconds
const POLICY = { maxLifetimeS: 86_400, clockSkewS: 30 };
const SEED = 20260603;

function appAt(now: number, policy = POLICY) {
  const app = new Hono<AppEnv>();
  app.onError(onError());
  app.use(
    '/me',
    requireProfile(SECRET, policy, () => now),
  );
  app.get('/me', (c) => c.json({ profile: c.get('profileId').toString() }));
  return app;
}

async function status(token: string, now = NOW, policy = POLICY) {
  const res = await appAt(now, policy).request('/me', {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) {
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
  }
  return res.status;
}

const claims = (extra: Record<string, unknown>) => sign({ sub: '42', ...extra }, SECRET, 'HS256');

describe('token claims', () => {
  it('accepts a well-formed token and sets the profile', async () => {
    const token = await claims({ iat: NOW - 10, exp: NOW + 3600 });
    const res = await appAt(NOW).request('/me', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ profile: '42' });
  });

  it('requires exp and iat as numbers', async () => {
    expect(await status(await claims({ iat: NOW }))).toBe(401);
    expect(await status(await claims({ exp: NOW + 60 }))).toBe(401);
    expect(await status(await claims({ iat: NOW, exp: String(NOW + 60) }))).toBe(401);
    expect(await status(await claims({ iat: String(NOW), exp: NOW + 60 }))).toBe(401);
  });

  it('bounds the lifetime exp - iat by AUTH_MAX_TOKEN_LIFETIME_S', async () => {
    expect(await status(await claims({ iat: NOW, exp: NOW + 86_400 }))).toBe(200);
    expect(await status(await claims({ iat: NOW, exp: NOW + 86_401 }))).toBe(401);
    expect(await status(await claims({ iat: NOW, exp: NOW + 30 * 86_400 }))).toBe(401);
    expect(await status(await claims({ iat: NOW, exp: NOW }))).toBe(401);
  });

  it('allows AUTH_CLOCK_SKEW_S of leeway on iat, exp and nbf, and no more', async () => {
    expect(await status(await claims({ iat: NOW + 30, exp: NOW + 600 }))).toBe(200);
    expect(await status(await claims({ iat: NOW + 31, exp: NOW + 600 }))).toBe(401);
    expect(await status(await claims({ iat: NOW - 600, exp: NOW - 29 }))).toBe(200);
    expect(await status(await claims({ iat: NOW - 600, exp: NOW - 30 }))).toBe(401);
    expect(await status(await claims({ iat: NOW, exp: NOW + 60, nbf: NOW + 30 }))).toBe(200);
    expect(await status(await claims({ iat: NOW, exp: NOW + 60, nbf: NOW + 31 }))).toBe(401);
  });

  it('accepts exactly the tokens the rules allow (property)', async () => {
    const policy = fc.record({
      maxLifetimeS: fc.integer({ min: 60, max: 100_000 }),
      clockSkewS: fc.integer({ min: 0, max: 120 }),
    });
    const offset = fc.integer({ min: -200_000, max: 200_000 });
    await fc.assert(
      fc.asyncProperty(policy, offset, offset, async (p, iatOff, expOff) => {
        const iat = NOW + iatOff;
        const exp = NOW + expOff;
        const allowed =
          iat <= NOW + p.clockSkewS &&
          exp > NOW - p.clockSkewS &&
          exp > iat &&
          exp - iat <= p.maxLifetimeS;
        expect(await status(await claims({ iat, exp }), NOW, p)).toBe(allowed ? 200 : 401);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('token signature and header', () => {
  const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

  it('refuses a signature whose last character differs only in padding bits', async () => {
    const token = await claims({ iat: NOW, exp: NOW + 60 });
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(s).toHaveLength(43); // 256 bits: the last character carries 2 unused bits
    expect(await status(token)).toBe(200);
    const last = B64URL.indexOf(s.at(-1)!);
    for (let low = 0; low < 4; low++) {
      const alt = B64URL[(last & ~3) | low]!;
      if (alt === s.at(-1)) continue;
      const forged = `${s.slice(0, -1)}${alt}`;
      // Same decoded bytes: only a comparison of the exact text can tell them apart.
      expect(Buffer.from(forged, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
      expect(await status(`${h}.${p}.${forged}`)).toBe(401);
    }
    expect(await status(`${h}.${p}.${s}=`)).toBe(401);
    expect(await status(`${h}.${p}.${s.slice(0, -1)}`)).toBe(401);
  });

  it('refuses other algorithms, foreign secrets and non-canonical subjects', async () => {
    const times = { iat: NOW, exp: NOW + 60 };
    expect(await status(await sign({ sub: '42', ...times }, SECRET, 'HS512'))).toBe(401);
    expect(await status(await sign({ sub: '42', ...times }, `${SECRET}x`, 'HS256'))).toBe(401);
    for (const sub of ['042', '+42', ' 42', '0', '9223372036854775808']) {
      expect(await status(await claims({ sub, ...times })), sub).toBe(401);
    }
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: '42', ...times }),
    ).toString('base64url')}.`;
    expect(await status(none)).toBe(401);
  });
});

describe('issueToken', () => {
  it('a token verified once is still refused when it expires or is not valid yet', async () => {
    // One app, one token, a clock that moves: the time rules run on every request.
    let now = NOW;
    const app = new Hono<AppEnv>();
    app.onError(onError());
    app.use(
      '/me',
      requireProfile(SECRET, POLICY, () => now),
    );
    app.get('/me', (c) => c.json({ profile: c.get('profileId').toString() }));
    const get = async (token: string) =>
      (await app.request('/me', { headers: { authorization: `Bearer ${token}` } })).status;
    const token = await claims({ iat: NOW - 10, nbf: NOW, exp: NOW + 60 });
    expect(await get(token)).toBe(200);
    expect(await get(token)).toBe(200);
    now = NOW + 60 + POLICY.clockSkewS + 1;
    expect(await get(token)).toBe(401);
    now = NOW - POLICY.clockSkewS - 1;
    expect(await get(token)).toBe(401);
    now = NOW;
    expect(await get(token)).toBe(200);
    // Another signature of the same header and claims is another string: verified on its own.
    const [h, p] = token.split('.') as [string, string, string];
    expect(await get(`${h}.${p}.${'A'.repeat(43)}`)).toBe(401);
  });

  it('issues tokens with iat and exp that the default policy accepts', async () => {
    const token = await issueToken(SECRET, 4242n);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(typeof payload.exp).toBe('number');
    expect(typeof payload.iat).toBe('number');
    const config = loadConfig({});
    const defaults = {
      maxLifetimeS: config.AUTH_MAX_TOKEN_LIFETIME_S,
      clockSkewS: config.AUTH_CLOCK_SKEW_S,
    };
    expect(defaults).toEqual({ maxLifetimeS: 86_400, clockSkewS: 30 });
    expect(payload.exp - payload.iat).toBeLessThanOrEqual(defaults.maxLifetimeS);
    expect(await status(token, Math.floor(Date.now() / 1000), defaults)).toBe(200);
  });
});
