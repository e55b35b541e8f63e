/**
 * Query parsing (a route registered with api/route.ts `serve`): bad input is refused on every
 * request, as problem+json through the app's error mapper (http/problem.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ok, route, serve } from '../../../src/http/api/route.js';
import type { AppEnv } from '../../../src/http/env.js';
import { onError } from '../../../src/http/problem.js';

describe('a route query', () => {
  const Q = z.strictObject({ limit: z.coerce.number().int().min(1).max(50).default(24) });
  const app = new OpenAPIHono<AppEnv>();
  app.onError(onError());
  const def = route('q', {
    method: 'get',
    path: '/q',
    request: { query: Q },
    responses: { 200: ok('the query', Q, { limit: 24 }) },
    problems: [],
  });
  serve(app, def, (c) => c.json(c.req.valid('query')));

  it('refuses bad input every time (errors are not remembered)', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await app.request('/q?limit=500');
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(((await r.json()) as { code: string }).code).toBe('invalid_request');
    }
    expect((await app.request('/q?bogus=1')).status).toBe(400);
    expect(await (await app.request('/q?limit=7')).json()).toEqual({ limit: 7 });
  });
});
