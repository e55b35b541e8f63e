/** Query parsing (http/request.ts): bad input is refused on every request. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readQuery } from '../../../src/http/request.js';

describe('readQuery', () => {
  const Q = z.strictObject({ limit: z.coerce.number().int().min(1).max(50).default(24) });
  const app = new Hono();
  app.get('/q', (c) => {
    try {
      const q = readQuery(c, Q);
      return c.json(q);
    } catch (e) {
      return c.json({ error: String(e) }, 400);
    }
  });

  it('refuses bad input every time (errors are not remembered)', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await app.request('/q?limit=500');
      expect(r.status).toBe(400);
    }
    expect((await app.request('/q?bogus=1')).status).toBe(400);
  });
});
