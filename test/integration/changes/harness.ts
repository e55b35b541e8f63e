/**
 * The change-stream tests' stores: the real service (GridService over the migrated test keyspace,
 * with the shared Redis) and its HTTP app, on stream keys of this run's own prefix (so nothing
 * here reads or writes another test's or engineer's streams), and readers of what was published.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import { Redis } from 'ioredis';
import type { Config } from '../../../src/config/config.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { shardOf, streamKeys } from '../../../src/cache/change-stream.js';
import { composeId, type IdGenerator } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import type { WriterHooks } from '../../../src/service/write-line/write-line.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';
import { rawRedis } from '../support/tls-clients.js';

export interface StreamEvent {
  readonly profile_id: string;
  readonly version: string;
  readonly generation: string;
  readonly at: string;
  readonly kind: string;
  readonly post_ids: string[];
}

export interface ChangesHarness {
  readonly config: Config;
  readonly client: Client;
  readonly ids: IdGenerator;
  readonly redis: RedisGuard;
  /** A plain connection for reading the streams. */
  readonly raw: Redis;
  readonly service: GridService;
  readonly app: Hono<AppEnv>;
  /** Another service instance on the same keyspace and prefix (settings `env` on top). */
  serviceWith(env: Record<string, string>, hooks?: WriterHooks): Promise<GridService>;
  /** Every event published for the profile, in stream order. */
  events(profileId: bigint): Promise<StreamEvent[]>;
  /** Waits until the profile has `n` events (the publish is not awaited by the write). */
  waitEvents(profileId: bigint, n: number, timeoutMs?: number): Promise<StreamEvent[]>;
  close(): Promise<void>;
}

export const CURSOR_SECRET = 'changes-tests-cursor-secret-0123456789';
/** The platform's service tokens (the changes route's full form: `serviceToken()`). */
export const SERVICE_SECRET = 'changes-tests-service-secret-0123456789';
export const serviceToken = () => issueServiceToken(SERVICE_SECRET, 'tests');

export async function openChanges(env: Record<string, string> = {}): Promise<ChangesHarness> {
  const prefix = `regrid_t_changes:${randomBytes(4).toString('hex')}:`;
  const base = {
    REDIS_TIMEOUT_MS: '2000',
    CHANGES_KEY_PREFIX: prefix,
    CHANGES_STREAM_SHARDS: '4',
    CHANGES_SWEEP_INTERVAL_MS: '0',
    CHANGES_SWEEP_AGE_MS: '300',
    ...env,
  };
  const config = testConfig(base);
  const client = await connectTestClient(config);
  const ids = idsFromWorkers(7800, 40);
  const redis = createRedisGuard(config);
  await redis.waitReady(5000);
  const raw = rawRedis(config, { lazyConnect: false });
  const guards: RedisGuard[] = [redis];
  const serviceWith = async (more: Record<string, string>, hooks: WriterHooks = {}) => {
    const c = testConfig({ ...base, ...more });
    const guard = more.REDIS_URL === 'none' ? undefined : createRedisGuard(c);
    if (guard) guards.push(guard);
    await guard?.waitReady(5000);
    return new GridService({
      cql: cqlOf(client),
      config: c,
      ids,
      cursorSecret: CURSOR_SECRET,
      hooks,
      ...(guard ? { redis: guard } : {}),
    });
  };
  const service = new GridService({
    cql: cqlOf(client),
    config,
    ids,
    cursorSecret: CURSOR_SECRET,
    redis,
  });
  const app = createApp({
    service,
    jwtSecret: 'changes-tests-jwt-secret-0123456789',
    serviceJwtSecret: SERVICE_SECRET,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(client), redis }),
  });
  const events = async (profileId: bigint) => {
    const { stream } = streamKeys(prefix, shardOf(profileId, config.CHANGES_STREAM_SHARDS));
    const entries = await raw.xrange(stream, '-', '+');
    return entries
      .map(([, fields]) => JSON.parse(fields[1]!) as StreamEvent)
      .filter((e) => e.profile_id === profileId.toString());
  };
  const waitEvents = async (profileId: bigint, n: number, timeoutMs = 5000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const got = await events(profileId);
      if (got.length >= n || Date.now() > until) return got;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const close = async () => {
    // Only this run's keys (its own prefix).
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    raw.disconnect();
    await Promise.all(guards.map((g) => g.close()));
    await client.shutdown();
  };
  return { config, client, ids, redis, raw, service, app, serviceWith, events, waitEvents, close };
}

/** A random profile ID, so tests never share a partition. */
export const randomProfile = (): bigint => (randomBytes(8).readBigUInt64BE() >> 2n) + 1n;

/** `n` posts from past times (newest first) put on the grid with one bump, outside the log. */
export async function seedGrid(
  h: ChangesHarness,
  service: GridService,
  profileId: bigint,
  n: number,
) {
  let ms = Date.now() - 1000;
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    ms -= 60_000;
    ids.push(composeId({ ms, worker: h.ids.worker, sequence: i % 1024 }));
  }
  await Promise.all(
    ids.map((postId, i) =>
      service.posts.insertPost(
        {
          postId,
          authorId: profileId,
          caption: `post ${i}`,
          mediaUrl: `https://media.example/${postId}.jpg`,
          createdAt: new Date(ms),
          collaborators: [],
        },
        [profileId],
        undefined,
      ),
    ),
  );
  await service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: {},
    result: null,
  }));
  return ids;
}

/** The versions of `events`, as numbers, in stream order. */
export const versionsOf = (events: readonly StreamEvent[]): number[] =>
  events.map((e) => Number(e.version));

/** 1..n. */
export const upTo = (n: number, from = 1): number[] =>
  Array.from({ length: n - from + 1 }, (_, i) => from + i);
