/**
 * Real stores and the real service for the feature tests: the migrated `regrid_test` keyspace on
 * the local Cassandra (global setup), a GridService with test hooks, and the idempotency service.
 * Every test uses fresh random profile IDs, so tests never share a partition.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../../src/config/config.js';
import type { IdGenerator } from '../../../src/domain/ids.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { IdempotencyStore } from '../../../src/store/idempotency-store.js';
import { GridService } from '../../../src/service/grid-service.js';
import type { WriterHooks } from '../../../src/service/write-line/write-line.js';
import { IdempotencyService } from '../../../src/service/idempotency/idempotency.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

export interface Features {
  readonly config: Config;
  readonly client: Client;
  readonly ids: IdGenerator;
  readonly service: GridService;
  /** Mutable: tests install `afterCas` here for crash injection. */
  readonly hooks: WriterHooks;
  readonly idemStore: IdempotencyStore;
  idempotency(opts?: { leaseMs?: number }): IdempotencyService;
  close(): Promise<void>;
}

export async function openFeatures(env: Record<string, string> = {}): Promise<Features> {
  const config = testConfig({ REDIS_TIMEOUT_MS: '2000', ...env });
  const client = await connectTestClient(config);
  const cql = cqlOf(client);
  const ids = idsFromWorkers(8150, 40);
  const hooks: WriterHooks = {};
  const service = new GridService({
    cql,
    config,
    ids,
    cursorSecret: 'feature-tests-cursor-secret',
    hooks,
  });
  const idemStore = new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S);
  return {
    config,
    client,
    ids,
    service,
    hooks,
    idemStore,
    idempotency: (opts = {}) =>
      new IdempotencyService(idemStore, {
        heads: (p) => service.readRequestRing(p),
        ttlS: config.IDEMPOTENCY_TTL_S,
        leaseMs: opts.leaseMs ?? 30_000,
      }),
    close: () => client.shutdown(),
  };
}

/** A fresh random profile ID. */
export const freshProfile = (f: Features): bigint => f.ids.next();

/** Creates `n` posts on the profile's grid through the service; returns IDs oldest first. */
export async function seed(f: Features, profileId: bigint, n: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const r = await f.service.createPost(profileId, { caption: `p${i}` });
    out.push(r.value.postId);
  }
  return out;
}

/** The grid's main order (pins excluded), top first, straight from the read path. */
export async function order(f: Features, profileId: bigint, limit = 100): Promise<bigint[]> {
  const page = await f.service.pages.page({ profileId, limit });
  const pins = new Set((await f.service.store.readHead(profileId)).pins);
  return page.entries.map((e) => e.postId).filter((id) => !pins.has(id));
}

export const JWT = 'feature-tests-jwt-secret-0123456789';
export const ADMIN = 'feature-tests-admin-token-0123456789';
export const SERVICE_SECRET = 'feature-tests-service-secret-0123456789';

export type CallResult = JsonReply;

export type Call = (
  method: string,
  path: string,
  opts?: {
    as?: bigint;
    admin?: boolean;
    /** Sign as a platform service (a service token, http/service-auth.ts). */
    service?: string;
    body?: unknown;
    headers?: Record<string, string>;
  },
) => Promise<CallResult>;

/** The real Hono app (no port) over the harness's service, features and idempotency. */
export function httpApi(f: Features): { call: Call; features: GridService } {
  const features = f.service;
  const app = createApp({
    service: f.service,
    idempotency: f.idempotency(),
    adminToken: ADMIN,
    jwtSecret: JWT,
    serviceJwtSecret: SERVICE_SECRET,
    bodyLimitBytes: f.config.BODY_LIMIT_BYTES,
    readiness: async () => ({ ok: true }) as never,
  });
  const call: Call = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.as !== undefined) headers.authorization = `Bearer ${await issueToken(JWT, opts.as)}`;
    if (opts.admin) headers.authorization = `Bearer ${ADMIN}`;
    if (opts.service)
      headers.authorization = `Bearer ${issueServiceToken(SERVICE_SECRET, opts.service)}`;
    const body = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
    return requestJson(app, method, path, headers, body);
  };
  return { call, features };
}
