/**
 * Cold first-page reads under load against the real node: 200 requests at once through the
 * in-process app, no Redis (every read goes to Cassandra). A page hydrates 24 bodies; read one
 * query per post, that is ~4,800 requests in flight on the driver's single default connection,
 * past its 2,048-per-connection limit (BusyConnectionError → 503 while Cassandra is healthy).
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.js';
import { JWT_SECRET, openCore, randomProfile, seedGrid, type Core } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let core: Core;
openPerFile(openCore, (opened) => (core = opened));

describe('cold first-page reads under load', () => {
  it('answers 200 to 200 concurrent first-page reads of 24 posts, and logs any 503', async () => {
    const profiles = Array.from({ length: 8 }, randomProfile);
    for (const p of profiles) await seedGrid(core, p, 30);
    const logged: string[] = [];
    const app = createApp({
      service: core.service,
      jwtSecret: JWT_SECRET,
      bodyLimitBytes: core.config.BODY_LIMIT_BYTES,
      readiness: async () => ({ ready: true, checks: {} }),
      log: (msg, err) => logged.push(`${msg} ${String(err)}`),
    });

    const replies = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await app.request(
          `/v1/profiles/${profiles[i % profiles.length]}/grid?limit=24`,
        );
        const body = (await res.json()) as { items?: unknown[]; type?: string };
        return { status: res.status, items: body.items?.length, type: body.type };
      }),
    );

    const failed = replies.filter((r) => r.status !== 200);
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);
    expect(replies.every((r) => r.items === 24)).toBe(true);
    expect(logged).toEqual([]);
  });
});
