/**
 * The core harness (real service on the shared Cassandra + Redis) behind the app as src/server.ts
 * wires it: with Idempotency-Key support and an ADMIN_TOKEN. `serve()` puts it on an
 * ephemeral loopback port for the typed client.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveNode, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { createApp } from '../../../src/http/app.js';
import { issueServiceToken } from '../../../src/http/service-auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { IdempotencyService } from '../../../src/service/idempotency/idempotency.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { IdempotencyStore } from '../../../src/store/idempotency-store.js';
import { requestJson, type JsonReply } from '../support/http.js';
import { JWT_SECRET, openCore, tokenFor, type Core } from '../core/harness.js';

export const ADMIN_TOKEN = 'api-tests-admin-token-0123456789';
export const SERVICE_SECRET = 'api-tests-service-secret-0123456789';

export interface Api {
  readonly core: Core;
  readonly app: Hono<AppEnv>;
  request(
    method: string,
    path: string,
    opts?: {
      as?: bigint;
      admin?: boolean;
      /** A service token for this service name (http/service-auth.ts). */
      service?: string;
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
    },
  ): Promise<JsonReply>;
  /** Serves the app on 127.0.0.1:<ephemeral>; returns the base URL. */
  serve(): Promise<string>;
  close(): Promise<void>;
}

export async function openApi(): Promise<Api> {
  const core = await openCore();
  const cql = cqlOf(core.client);
  const idempotency = new IdempotencyService(
    new IdempotencyStore(cql, core.config.IDEMPOTENCY_TTL_S),
    {
      heads: (p) => core.service.readRequestRing(p),
      ttlS: core.config.IDEMPOTENCY_TTL_S,
      leaseMs: core.config.IDEMPOTENCY_LEASE_MS,
    },
  );
  const app = createApp({
    service: core.service,
    idempotency,
    adminToken: ADMIN_TOKEN,
    jwtSecret: JWT_SECRET,
    serviceJwtSecret: SERVICE_SECRET,
    // As in development, so the route walk sees every route (the editor's page is not API).
    devTokens: { profileId: 4242n, ttlS: 3600 },
    bodyLimitBytes: core.config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql, redis: core.redis }),
  });
  let server: ServerType | undefined;
  return {
    core,
    app,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.as !== undefined) headers['authorization'] = `Bearer ${await tokenFor(opts.as)}`;
      if (opts.admin) headers['authorization'] = `Bearer ${ADMIN_TOKEN}`;
      if (opts.service)
        headers['authorization'] = `Bearer ${issueServiceToken(SERVICE_SECRET, opts.service)}`;
      const body = opts.raw ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
      return requestJson(app, method, path, headers, body);
    },
    async serve() {
      await new Promise<void>((resolve) => {
        server = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
      });
      return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    },
    async close() {
      if (server) {
        const s = server as Server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections(); // the client's keep-alive sockets would hold close() open
        });
      }
      await core.close();
    },
  };
}
