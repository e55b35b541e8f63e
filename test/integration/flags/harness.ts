/**
 * The real service with Redis and the HTTP app, on a flags scope of its own: flag flips made by
 * these tests are invisible to every other test using the shared `regrid_test` keyspace (whose
 * processes follow scope `default`).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import type { Config } from '../../../src/config/config.js';
import type { IdGenerator } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

export const JWT = 'flags-tests-jwt-secret-0123456789';
export const ADMIN = 'flags-tests-admin-token-0123456789';
export const CURSORS = 'flags-tests-cursor-secret-0123456789';

export interface Opened {
  readonly config: Config;
  readonly client: Client;
  readonly redis: RedisGuard;
  readonly ids: IdGenerator;
  readonly service: GridService;
  call(
    method: string,
    path: string,
    opts?: { as?: bigint; admin?: boolean; body?: unknown },
  ): Promise<JsonReply>;
  close(): Promise<void>;
}

export async function openFlagsHarness(env: Record<string, string> = {}): Promise<Opened> {
  const config = testConfig({
    REDIS_TIMEOUT_MS: '2000',
    FLAGS_SCOPE: `test-${randomUUID()}`,
    ...env,
  });
  const client = await connectTestClient(config);
  const redis = createRedisGuard(config, { log: () => {} });
  await redis.waitReady(2000);
  // Worker numbers of this harness only (see support/stores.ts).
  const ids = idsFromWorkers(7700, 40);
  const service = new GridService({
    cql: cqlOf(client),
    config,
    ids,
    cursorSecret: CURSORS,
    redis,
  });
  const app = createApp({
    service,
    adminToken: ADMIN,
    jwtSecret: JWT,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ok: true }) as never,
  });
  return {
    config,
    client,
    redis,
    ids,
    service,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = {};
      if (opts.as !== undefined) headers.authorization = `Bearer ${await issueToken(JWT, opts.as)}`;
      if (opts.admin) headers.authorization = `Bearer ${ADMIN}`;
      const body = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
      return requestJson(app, method, path, headers, body);
    },
    async close() {
      await Promise.allSettled([client.shutdown(), redis.close()]);
    },
  };
}

/** Every item ID of the grid, page by page over HTTP, and the cursors that were issued. */
export async function readAllHttp(h: Opened, profileId: bigint, limit: number) {
  const ids: string[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const r = await h.call('GET', `/v1/profiles/${profileId}/grid?limit=${limit}${q}`);
    if (r.status !== 200) throw new Error(`grid read ${r.status}: ${JSON.stringify(r.json)}`);
    ids.push(...r.json.items.map((i: { id: string }) => i.id));
    cursor = r.json.next_cursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  return { ids, cursors };
}

/** The override partition's rows and static columns, as comparable text. */
export async function overridePartition(client: Client, profileId: bigint): Promise<string> {
  const rs = await client.execute(
    'SELECT post_id, sort_key, moved_version, version, generation, pins FROM grid_overrides WHERE profile_id = ?',
    [profileId],
    { prepare: true },
  );
  return JSON.stringify(
    rs.rows.map((r) => Object.fromEntries(r.keys().map((k) => [k, String(r.get(k))]))),
  );
}
