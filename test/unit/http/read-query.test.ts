/** Query parsing (http/request.ts): remembered per schema and raw query string, never for errors. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readQuery } from '../../../src/http/request.js';

describe('readQuery', () => {
  const Q = z.strictObject({ limit: z.coerce.number().int().min(1).max(50).default(24) });
  const app = new Hono();
  const seen: unknown[] = [];
  app.get('/q', (c) => {
    try {
      const q = readQuery(c, Q);
      seen.push(q);
      return c.json(q);
    } catch (e) {
      return c.json({ error: String(e) }, 400);
    }
  });

  it('parses each distinct query string, and answers a repeated one with the same result', async () => {
    expect(await (await app.request('/q?limit=7')).json()).toEqual({ limit: 7 });
    expect(await (await app.request('/q?limit=7')).json()).toEqual({ limit: 7 });
    expect(await (await app.request('/q')).json()).toEqual({ limit: 24 });
    expect(seen[0]).toBe(seen[1]); // remembered
    expect(seen[2]).not.toBe(seen[0]);
  });

  it('refuses bad input every time (errors are not remembered)', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await app.request('/q?limit=500');
      expect(r.status).toBe(400);
    }
    expect((await app.request('/q?bogus=1')).status).toBe(400);
  });
});
