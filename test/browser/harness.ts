/**
 * The real service for the browser tests: GridService over the migrated test keyspace on the
 * shared Cassandra and the shared Redis (global setup of the integration project), the real Hono
 * app with idempotency and the editor built from web/ by vite into a temporary folder (so the
 * tests run the current source), served on an ephemeral loopback port. The development sign-in
 * route is on and hands out a token for the profile the test names, as `npm start` does for 4242.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { build } from 'vite';
import { createRedisGuard, type RedisGuard } from '../../src/cache/redis.js';
import { createApp } from '../../src/http/app.js';
import { issueToken } from '../../src/http/auth.js';
import { GridService } from '../../src/service/grid-service.js';
import { IdempotencyService } from '../../src/service/idempotency/idempotency.js';
import { makeReadiness } from '../../src/service/readiness.js';
import { cqlOf } from '../../src/store/cassandra.js';
import type { IdGenerator } from '../../src/domain/ids.js';
import { IdempotencyStore } from '../../src/store/idempotency-store.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../integration/support/stores.js';

const JWT = 'browser-tests-jwt-secret-0123456789';

export interface Served {
  readonly base: string;
  /** Calls the API as `profileId` would from another device. */
  call(
    method: string,
    path: string,
    profileId: bigint,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export interface Editor {
  readonly service: GridService;
  /** Fresh profile IDs, from the harness's own worker range. */
  readonly ids: IdGenerator;
  /** Serves the app, with the development sign-in for `devProfile` if given. */
  serve(devProfile?: bigint): Promise<Served>;
  /** A token for `profileId`, as the user would paste it. */
  token(profileId: bigint): Promise<string>;
  close(): Promise<void>;
}

/** Closes a server without waiting for the browser's idle keep-alive connections. */
function stop(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}

export async function openEditor(): Promise<Editor> {
  // Moves in a test come faster than a person's; the limiter is not what these tests are about.
  const config = testConfig({ REDIS_TIMEOUT_MS: '2000', MOVE_RATE_LIMIT: '10000' });
  const client = await connectTestClient(config);
  const cql = cqlOf(client);
  const redis: RedisGuard = createRedisGuard(config, { log: () => {} });
  await redis.waitReady(2000);
  const ids = idsFromWorkers(7600, 20);
  const service = new GridService({
    cql,
    config,
    ids,
    cursorSecret: 'browser-tests-cursor-secret',
    redis,
  });
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
  });
  const webRoot = mkdtempSync(join(tmpdir(), 'regrid-editor-'));
  await build({
    root: 'web',
    logLevel: 'warn',
    build: { outDir: webRoot, emptyOutDir: true },
  });

  const servers: ServerType[] = [];
  return {
    service,
    ids,
    token: (profileId) => issueToken(JWT, profileId),
    async serve(devProfile) {
      const app = createApp({
        service,
        idempotency,
        jwtSecret: JWT,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        readiness: makeReadiness({ cql, redis, timeoutMs: 2000 }),
        editorRoot: webRoot,
        ...(devProfile !== undefined ? { devTokens: { profileId: devProfile, ttlS: 3600 } } : {}),
      });
      const server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
      });
      servers.push(server);
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return {
        base,
        async call(method, path, profileId, body, headers = {}) {
          const res = await fetch(base + path, {
            method,
            headers: {
              authorization: `Bearer ${await issueToken(JWT, profileId)}`,
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
              ...headers,
            },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          });
          const text = await res.text();
          return { status: res.status, json: text ? JSON.parse(text) : undefined };
        },
        close: () => stop(server),
      };
    },
    async close() {
      await Promise.all(servers.map(stop));
      await redis.close();
      await client.shutdown();
      rmSync(webRoot, { recursive: true, force: true });
    },
  };
}
