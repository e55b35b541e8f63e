/**
 * The editor's two server pieces: the static files at `/` and `/assets/*`, and the development
 * sign-in, which exists only when the app is given it (src/server.ts does so only when the JWT
 * secret was generated, i.e. no AUTH_JWT_SECRET is configured).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type AppDeps } from '../../../src/http/app.js';
import { DEFAULT_TOKEN_POLICY, verifyHs256 } from '../../../src/http/jwt.js';

const SECRET = 'editor-routes-test-secret-0123456789';
const root = mkdtempSync(join(tmpdir(), 'regrid-editor-routes-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>regrid</title>');
writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The routes under test never reach the service.
const app = (extra: Partial<AppDeps>) =>
  createApp({
    service: {} as AppDeps['service'],
    jwtSecret: SECRET,
    bodyLimitBytes: 16384,
    readiness: async () => ({ ready: true, checks: {} }) as never,
    ...extra,
  });

describe('the editor files', () => {
  it('serves index.html at / (no-cache) and hashed assets as immutable', async () => {
    const a = app({ editorRoot: root });
    const index = await a.request('/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(await index.text()).toContain('<title>regrid</title>');
    const js = await a.request('/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await a.request('/assets/../index.html')).status).toBe(404);
    expect((await a.request('/assets/missing.js')).status).toBe(404);
  });

  it('says how to build the editor when it is not built', async () => {
    const res = await app({ editorRoot: join(root, 'nowhere') }).request('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build:web');
  });
});

describe('POST /dev/token', () => {
  it('does not exist unless the app is given development tokens', async () => {
    const res = await app({}).request('/dev/token', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('hands out a token for the demo profile that the API accepts', async () => {
    const a = app({ devTokens: { profileId: 4242n, ttlS: 600 } });
    const res = await a.request('/dev/token', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { token: string; profile_id: string; expires_in: number };
    expect(body).toMatchObject({ profile_id: '4242', expires_in: 600 });
    const claims = verifyHs256(body.token, SECRET, DEFAULT_TOKEN_POLICY, Date.now() / 1000);
    expect(claims['sub']).toBe('4242');
    expect((await a.request('/dev/token')).status).toBe(404); // POST only
  });
});
