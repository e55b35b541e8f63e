/**
 * The real service and HTTP app on the cache harness's stores, with or without a Redis guard,
 * and the few calls the cache tests make through it (all pages of a grid, a move).
 */
import { expect } from 'vitest';
import type { RedisGuard } from '../../../src/cache/redis.js';
import type { Config } from '../../../src/config/config.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { deadlinesOf } from '../../../src/http/deadline.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import type { Stores } from './harness.js';
import { requestJson } from '../support/http.js';

const JWT = 'cache-tests-jwt-secret-0123456789';
const CURSORS = 'cache-tests-cursor-secret-0123456789';

export interface ServiceOptions {
  /** Answer 503 past REQUEST_DEADLINE_*_MS, as the server does (a hang then shows as a 503). */
  readonly deadlines?: boolean;
}

export function serviceWith(
  s: Stores,
  config: Config,
  redis?: RedisGuard,
  opts: ServiceOptions = {},
) {
  const cql = cqlOf(s.client);
  const service = new GridService({
    cql,
    config,
    ids: s.ids,
    cursorSecret: CURSORS,
    ...(redis ? { redis } : {}),
  });
  const app = createApp({
    service,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql, redis, timeoutMs: 2000 }),
    ...(opts.deadlines ? { deadlines: deadlinesOf(config) } : {}),
  });
  async function call(method: string, path: string, profileId?: bigint, body?: unknown) {
    const headers: Record<string, string> = {};
    if (profileId) headers.authorization = `Bearer ${await issueToken(JWT, profileId)}`;
    return requestJson(
      app,
      method,
      path,
      headers,
      body !== undefined ? JSON.stringify(body) : undefined,
    );
  }
  return { service, call };
}

export type Api = ReturnType<typeof serviceWith>;

export async function allPages(api: Api, profileId: bigint, limit: number, minVersion?: string) {
  const pages: Array<{ ids: string[]; cursor: string | null; version: string }> = [];
  let cursor: string | null = null;
  do {
    const qs = new URLSearchParams({ limit: String(limit) });
    if (cursor) qs.set('cursor', cursor);
    if (minVersion) qs.set('min_version', minVersion);
    const r = await api.call('GET', `/v1/profiles/${profileId}/grid?${qs}`);
    expect(r.status).toBe(200);
    cursor = r.json.next_cursor;
    pages.push({
      ids: r.json.items.map((i: { id: string }) => i.id),
      cursor,
      version: r.json.grid_version,
    });
  } while (cursor);
  return pages;
}

export const move = (api: Api, profileId: bigint, postId: bigint, after: bigint | null) =>
  api.call('POST', '/v1/me/grid/moves', profileId, {
    post_id: String(postId),
    after: after === null ? null : String(after),
  });
