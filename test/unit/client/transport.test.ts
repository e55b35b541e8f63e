/**
 * The client's transport over a scripted `fetch` (no server: what is tested is the client's own
 * logic): problem+json becomes RegridError, a retried write keeps its Idempotency-Key, a
 * write whose outcome is unknown (a 503 saying so, or no answer at all) is never retried without
 * a key, a 401 is told to `onUnauthorized`, and keys are random UUID-shaped strings with or
 * without Web Crypto.
 */
import { describe, expect, it } from 'vitest';
import { RegridError } from '../../../client/src/problem.js';
import { makeCall } from '../../../client/src/transport.js';
import { randomKey } from '../../../client/src/keys.js';

const problem = (status: number, code: string, retryAfter?: string) =>
  new Response(
    JSON.stringify({ type: `https://regrid.dev/problems/${code}`, title: code, status, code }),
    {
      status,
      headers: {
        'content-type': 'application/problem+json',
        ...(retryAfter ? { 'retry-after': retryAfter } : {}),
      },
    },
  );
const ok = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

/** Stands for a request that gets no answer (the connection refused or reset). */
const REFUSED = new Response(null, { status: 599 });

function scripted(...answers: Response[]) {
  const sent: Array<{ url: string; headers: Headers; method: string }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, headers: new Headers(init.headers), method: String(init.method) });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next === REFUSED) throw new TypeError('fetch failed');
    return next;
  }) as unknown as typeof globalThis.fetch;
  return { fetch, sent };
}

describe('the transport', () => {
  it('retries a 503 after Retry-After with the same Idempotency-Key', async () => {
    const { fetch, sent } = scripted(
      problem(503, 'write_outcome_unknown', '0'),
      problem(503, 'contention', '0'),
      ok({ grid_version: '7', move_id: '0f7d3c1e-5b0a-4d3e-9a55-2f1c9e8b7a61' }),
    );
    const call = makeCall({ baseUrl: 'http://h/', token: 't', fetch, retries: 2 });
    const r = await call('move', { body: { post_id: '5', after: null } });
    expect(r.data.grid_version).toBe('7');
    expect(sent).toHaveLength(3);
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(sent[0]).toMatchObject({ url: 'http://h/v1/me/grid/moves', method: 'POST' });
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer t');
  });

  it('does not retry an unknown outcome sent without a key, nor by default', async () => {
    const a = scripted(problem(503, 'write_outcome_unknown', '0'), ok({}));
    const noKey = makeCall({ baseUrl: 'http://h', fetch: a.fetch, retries: 3 });
    await expect(noKey('resetGrid', { idempotencyKey: false })).rejects.toBeInstanceOf(RegridError);
    expect(a.sent).toHaveLength(1);
    expect(a.sent[0]!.headers.get('idempotency-key')).toBeNull();

    const b = scripted(problem(503, 'unavailable', '0'), ok({}));
    const byDefault = makeCall({ baseUrl: 'http://h', fetch: b.fetch });
    const err = await byDefault('getPost', { params: { post_id: '9' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'unavailable', retryAfter: 0 });
    expect(b.sent).toHaveLength(1);
  });

  it('turns an answer that is not problem+json into an unexpected_response error', async () => {
    const { fetch } = scripted(new Response('<html>bad gateway</html>', { status: 502 }));
    const call = makeCall({ baseUrl: 'http://h', fetch });
    const err = await call('healthz').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, code: 'unexpected_response', type: 'about:blank' });
  });

  it('fills path parameters and query strings, and sends no key on reads', async () => {
    const { fetch, sent } = scripted(
      ok({ items: [], next_cursor: null, grid_version: '0', grid_changed: false }),
    );
    const call = makeCall({ baseUrl: 'http://h', fetch });
    await call('readGrid', { params: { profile_id: '42' }, query: { limit: 5, cursor: 'a b' } });
    expect(sent[0]!.url).toBe('http://h/v1/profiles/42/grid?limit=5&cursor=a+b');
    expect(sent[0]!.headers.get('idempotency-key')).toBeNull();
  });

  it('retries a request that got no answer only when a retry cannot apply a write twice', async () => {
    const a = scripted(REFUSED, REFUSED, ok({ grid_version: '3', move_id: 'm' }));
    const keyed = makeCall({ baseUrl: 'http://h', fetch: a.fetch, retries: 2, maxWaitMs: 1 });
    expect((await keyed('move', { body: { post_id: '5', after: null } })).data.grid_version).toBe(
      '3',
    );
    const keys = a.sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);

    const b = scripted(REFUSED, ok({}));
    const noKey = makeCall({ baseUrl: 'http://h', fetch: b.fetch, retries: 2, maxWaitMs: 1 });
    const err = await noKey('resetGrid', { idempotencyKey: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegridError);
    expect(err).toMatchObject({ status: 0, code: 'network_error' });
    expect((err as Error).cause).toBeInstanceOf(TypeError);
    expect(b.sent).toHaveLength(1);
  });

  it('tells onUnauthorized of a 401 before throwing it', async () => {
    const { fetch } = scripted(problem(401, 'unauthorized'), ok({ status: 'ok' }));
    const told: unknown[] = [];
    const call = makeCall({ baseUrl: 'http://h', fetch, onUnauthorized: (e) => told.push(e) });
    const err = await call('getOrder').catch((e: unknown) => e);
    expect(told).toEqual([err]);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
    await call('healthz');
    expect(told).toHaveLength(1);
  });
});

describe('randomKey', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('makes distinct UUID v4 strings from crypto.getRandomValues', () => {
    const keys = Array.from({ length: 2000 }, randomKey);
    for (const k of keys) expect(k).toMatch(V4);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('does without Web Crypto (and never calls crypto.randomUUID)', () => {
    const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
    const webCrypto = globalThis.crypto;
    try {
      Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
      const keys = Array.from({ length: 200 }, randomKey);
      for (const k of keys) expect(k).toMatch(V4);
      expect(new Set(keys).size).toBe(keys.length);
      Object.defineProperty(globalThis, 'crypto', {
        value: {
          getRandomValues: webCrypto.getRandomValues.bind(webCrypto),
          randomUUID: () => {
            throw new Error('randomUUID needs a secure context');
          },
        },
        configurable: true,
      });
      expect(randomKey()).toMatch(V4);
    } finally {
      Object.defineProperty(globalThis, 'crypto', real);
    }
  });
});
