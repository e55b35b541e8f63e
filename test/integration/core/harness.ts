/**
 * The real service and HTTP app for the core tests, on the migrated `regrid_test` keyspace
 * (global setup). Requests go through `app.request()` in-process: the full Hono stack (auth,
 * body limit, zod, problem+json) without a port. Every test uses fresh random profile IDs.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import type { Config } from '../../../src/config/config.js';
import { composeId, type IdGenerator } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

export const JWT_SECRET = 'core-tests-jwt-secret-0123456789';
export const CURSOR_SECRET = 'core-tests-cursor-secret-0123456789';

export interface Core {
  readonly config: Config;
  readonly client: Client;
  readonly ids: IdGenerator;
  readonly service: GridService;
  readonly app: Hono<AppEnv>;
  readonly redis: RedisGuard;
  /** A second service over another Cql (e.g. a tracing one), same keyspace and secrets. */
  serviceOver(cql: Cql): GridService;
  close(): Promise<void>;
}

export async function openCore(env: Record<string, string> = {}): Promise<Core> {
  const config = testConfig(env);
  const client = await connectTestClient(config);
  const ids = idsFromWorkers(7000, 500);
  const serviceOver = (cql: Cql) =>
    new GridService({ cql, config, ids, cursorSecret: CURSOR_SECRET });
  const service = serviceOver(cqlOf(client));
  // Only /readyz uses Redis here: the core tests exercise the uncached Cassandra paths.
  const redis = createRedisGuard({ ...config, REDIS_TIMEOUT_MS: 2000 });
  await redis.waitReady(5000);
  const app = createApp({
    service,
    jwtSecret: JWT_SECRET,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(client), redis }),
  });
  const close = async () => {
    await redis.close();
    await client.shutdown();
  };
  return { config, client, ids, service, app, redis, serviceOver, close };
}

/** A random profile ID (positive signed 64-bit), so tests never share a partition. */
export const randomProfile = (): bigint => (randomBytes(8).readBigUInt64BE() >> 2n) + 1n;

export const tokenFor = (profileId: bigint) => issueToken(JWT_SECRET, profileId);

export interface CallOptions {
  readonly token?: string;
  readonly body?: unknown;
  /** Sent verbatim (for malformed-JSON tests). */
  readonly rawBody?: string;
}

export type Reply = JsonReply;

export async function call(
  core: Core,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  return requestJson(core.app, method, path, headers, body);
}

/**
 * Posts with IDs from past timestamps, `gapMs` apart (newest first), written as a new post
 * would be (rows first) and then one version bump. Realistic gaps keep relabels out of tests
 * that are not about relabels. Returns IDs newest first (= chronological display order).
 */
export async function seedGrid(
  core: Core,
  profileId: bigint,
  n: number,
  gapMs = 60_000,
): Promise<bigint[]> {
  let ms = Date.now() - 1000;
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    ms -= gapMs;
    ids.push(composeId({ ms, worker: core.ids.worker, sequence: i % 1024 }));
  }
  await Promise.all(
    ids.map((postId, i) =>
      core.service.posts.insertPost(
        {
          postId,
          authorId: profileId,
          caption: `post ${n - i}`,
          mediaUrl: `https://media.example/${postId}.jpg`,
          createdAt: new Date(ms),
          collaborators: [],
        },
        [profileId],
        undefined,
      ),
    ),
  );
  await core.service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: {},
    result: null,
  }));
  return ids;
}

/** Every page of the grid through the service, as post IDs (pins included on page one). */
export async function readAll(
  service: GridService,
  profileId: bigint,
  limit = 100,
): Promise<bigint[]> {
  const out: bigint[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.pages.page({ profileId, limit, cursor });
    out.push(...page.items.map((p) => p.postId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}
