/**
 * One service instance on the private stores, wired as src/server.ts wires it (grid service with
 * the Redis cache, features, idempotency, readiness), minus the HTTP listener: requests go
 * through `app.request()`. Two instances in one test stand for two servers: each has its own
 * Cassandra client and its own Redis connection, guard and caches.
 */
import { policies, type Client } from 'cassandra-driver';
import type { Hono } from 'hono';
import type { Config } from '../../../src/config/config.js';
import { composeId, IdGenerator, MAX_WORKER } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { deadlinesOf } from '../../../src/http/deadline.js';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { GridService } from '../../../src/service/grid-service.js';
import { IdempotencyService } from '../../../src/service/idempotency/idempotency.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { createCassandraClient, cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { IdempotencyStore } from '../../../src/store/idempotency-store.js';

const JWT_SECRET = 'faults-jwt-secret-0123456789abcdef';
const CURSOR_SECRET = 'faults-cursor-secret-0123456789abcdef';

export interface Instance {
  readonly config: Config;
  readonly client: Client;
  readonly guard: RedisGuard;
  readonly service: GridService;
  /** The same stores without Redis: what Cassandra holds, for the final checks. */
  readonly truth: GridService;
  readonly app: Hono<AppEnv>;
  readonly ids: IdGenerator;
  /** Errors the app mapped to a 500, by message (how often each), for the tests' reports. */
  readonly internalErrors: Map<string, number>;
  close(): Promise<void>;
}

export interface Reply {
  readonly status: number;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly replayed: boolean;
  readonly etag: string | undefined;
  readonly retryAfter: string | undefined;
}

/** Worker numbers of the fault suite: far from the integration harnesses' 7000–8189. */
const workerIds = () => new IdGenerator(6000 + Math.floor(Math.random() * 500));

export interface InstanceOptions {
  /** Answer 503 at the configured request deadlines, as `npm start` does (src/http/deadline.ts). */
  readonly deadlines?: boolean;
  /** Only this node (`address:port`) coordinates: the others are never sent a request. */
  readonly coordinator?: string;
  /** Wraps the service's Cql (a test seam: e.g. inject a fault right before a statement). */
  readonly wrapCql?: (cql: Cql) => Cql;
}

export async function openInstance(config: Config, opts: InstanceOptions = {}): Promise<Instance> {
  // The fault suite's config names no contact points (its one private node on 127.0.0.1); the
  // cluster suite's names the three nodes of its ring.
  const client = createCassandraClient(config, {
    keyspace: config.CASSANDRA_KEYSPACE,
    contactPoints: config.CASSANDRA_CONTACT_POINTS.length
      ? config.CASSANDRA_CONTACT_POINTS
      : ['127.0.0.1'],
    ...(opts.coordinator
      ? {
          loadBalancing: new policies.loadBalancing.AllowListPolicy(
            new policies.loadBalancing.DCAwareRoundRobinPolicy(config.CASSANDRA_LOCAL_DC),
            [opts.coordinator],
          ),
        }
      : {}),
  });
  await client.connect();
  const cql = opts.wrapCql ? opts.wrapCql(cqlOf(client)) : cqlOf(client);
  const guard = createRedisGuard(config, { log: () => {} });
  await guard.waitReady(5000);
  const ids = workerIds();
  const service = new GridService({ cql, config, ids, cursorSecret: CURSOR_SECRET, redis: guard });
  const truth = new GridService({ cql, config, ids, cursorSecret: CURSOR_SECRET });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
  });
  const internalErrors = new Map<string, number>();
  const app = createApp({
    service,
    idempotency,
    jwtSecret: JWT_SECRET,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql, redis: guard }),
    ...(opts.deadlines ? { deadlines: deadlinesOf(config) } : {}),
    log: (_msg, err) => {
      const what = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      internalErrors.set(what, (internalErrors.get(what) ?? 0) + 1);
    },
  });
  return {
    config,
    client,
    guard,
    service,
    truth,
    app,
    ids,
    internalErrors,
    close: async () => {
      await guard.close();
      await client.shutdown();
    },
  };
}

const tokens = new Map<bigint, Promise<string>>();
const tokenFor = (profileId: bigint) => {
  let t = tokens.get(profileId);
  if (!t) tokens.set(profileId, (t = issueToken(JWT_SECRET, profileId, 3600)));
  return t;
};

/** One request as `profileId` (bearer token), body as JSON when given. */
export async function call(
  inst: Instance,
  method: string,
  path: string,
  profileId: bigint,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${await tokenFor(profileId)}`,
    ...opts.headers,
  };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await inst.app.request(path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? JSON.parse(text) : undefined,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    etag: res.headers.get('etag') ?? undefined,
    retryAfter: res.headers.get('retry-after') ?? undefined,
  };
}

/** A fresh profile ID per grid (no two runs share a partition or a cache key). */
const profileIds = new IdGenerator(MAX_WORKER - Math.floor(Math.random() * 100));
export const freshProfile = (): bigint => profileIds.next();

/**
 * `n` posts a minute apart (newest first, as the grid shows them), written as a new post is
 * (rows first) and then one version bump. Returns the display order.
 */
export async function seedGrid(inst: Instance, profileId: bigint, n: number): Promise<bigint[]> {
  let ms = Date.now() - 1000;
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    ms -= 60_000;
    ids.push(composeId({ ms, worker: inst.ids.worker, sequence: i }));
  }
  await Promise.all(
    ids.map((postId, i) =>
      inst.service.posts.insertPost(
        {
          postId,
          authorId: profileId,
          caption: `post ${n - i}`,
          mediaUrl: undefined,
          createdAt: new Date(ms),
          collaborators: [],
        },
        [profileId],
        undefined,
      ),
    ),
  );
  await inst.service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: {},
    result: null,
  }));
  return ids;
}

/** A plain first-page read (no min_version): what a profile visit does. */
export async function readVersion(inst: Instance, profileId: bigint): Promise<bigint> {
  const r = await call(inst, 'GET', `/v1/profiles/${profileId}/grid?limit=24`, profileId);
  if (r.status !== 200)
    throw new Error(`grid read answered ${r.status}: ${JSON.stringify(r.json)}`);
  return BigInt(r.json.grid_version);
}

/** The whole grid in display order, page by page, straight from Cassandra (no cache). */
export async function readWholeGrid(inst: Instance, profileId: bigint): Promise<bigint[]> {
  const out: bigint[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await inst.truth.pages.page({ profileId, limit: 100, cursor });
    out.push(...page.items.map((p) => p.postId));
    cursor = page.nextCursor ?? undefined;
    if (!cursor) return out;
  }
  throw new Error(`grid ${profileId} did not end after 100 pages`);
}
