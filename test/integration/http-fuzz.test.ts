/**
 * Bounded HTTP fuzz of the whole app, wired as src/server.ts wires it (grid service with the Redis
 * cache and rate limit, features, idempotency, admin API) on the real Cassandra and Redis, called
 * in-process. A few thousand generated requests (test/integration/support/fuzz-requests.ts) with
 * mangled IDs, odd query strings, broken bodies and headers, and refused credentials. Invariants:
 * no 5xx except 503 with Retry-After, every 4xx is problem+json, a request naming an ID or time
 * outside the contract is a 4xx (support/fuzz-contract.ts), nothing is logged as unhandled, and
 * a reference grid seeded before (a move and a pin on it) has the same order, pins, version and
 * ETag after, with a clean audit, and what only its owner may see (an archived post, the change
 * log's private kinds, a pending collaborator) is in no answer. Then slow and partial requests on raw sockets to the same app on
 * a real server (support/fuzz-wire.ts): each is a 408 (or a 413 past the limit) and a close.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import fc from 'fast-check';
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisGuard, type RedisGuard } from '../../src/cache/redis.js';
import { issueToken } from '../../src/http/auth.js';
import { createApp } from '../../src/http/app.js';
import { tokenPolicyOf } from '../../src/http/jwt.js';
import { serverOptionsOf } from '../../src/http/server-options.js';
import type { Config } from '../../src/config/config.js';
import { GridService } from '../../src/service/grid-service.js';
import { IdempotencyService } from '../../src/service/idempotency/idempotency.js';
import { makeReadiness } from '../../src/service/readiness.js';
import { cqlOf } from '../../src/store/cassandra.js';
import { IdempotencyStore } from '../../src/store/idempotency-store.js';
import type { Client } from 'cassandra-driver';
import { fuzzRequest, type FuzzWorld } from './support/fuzz-requests.js';
import { sendStalled, stalledRequest } from './support/fuzz-wire.js';
import { connectTestClient, idsFromWorkers, testConfig } from './support/stores.js';

const SEED = 20260604;
const RUNS = 4000;
const JWT = 'fuzz-tests-jwt-secret-0123456789';
const ADMIN = 'fuzz-tests-admin-token-0123456789';
/** The caption of the reference owner's archived post: no answer to anyone else may contain it. */
const ARCHIVED_CAPTION = 'fuzz-archived-caption-only-the-owner-sees';

let config: Config;
let client: Client;
let redis: RedisGuard;
let app: ReturnType<typeof createApp>;
let service: GridService;
let features: GridService;
let world: FuzzWorld;
let pendingInvitee: bigint;
const logged: Array<{ msg: string; err: unknown }> = [];

async function snapshot(profileId: bigint) {
  const order = await features.readOrder(profileId);
  const pages: string[] = [];
  let cursor: string | undefined;
  let version: bigint | undefined;
  do {
    const page = await service.pages.page({ profileId, limit: 2, cursor });
    pages.push(...page.items.map((p) => p.postId.toString()));
    version ??= page.version;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return {
    etag: order.etag,
    order: order.postIds.map(String),
    pinned: order.pinned.map(String),
    pages,
    version: version?.toString(),
  };
}

/** Tokens for `sub` that are signed with the real secret (or forged) and must all be refused. */
async function refusedTokensFor(sub: string): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const ok = { sub, iat: now, exp: now + 600 };
  const hs256 = (claims: Record<string, unknown>) => sign(claims, JWT, 'HS256');
  const valid = await hs256(ok);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(valid.at(-1)!);
  const respelled = [1, 2, 3].map((d) => valid.slice(0, -1) + alphabet[last ^ d]);
  const none = [{ alg: 'none', typ: 'JWT' }, ok]
    .map((o) => Buffer.from(JSON.stringify(o)).toString('base64url'))
    .join('.');
  return [
    ...respelled,
    `${none}.`,
    `${none}.${valid.split('.')[2]}`,
    await hs256({ sub, iat: now - 7200, exp: now - 3600 }),
    await hs256({ sub, iat: now }),
    await hs256({ sub, exp: now + 600 }),
    await hs256({ sub, iat: now, exp: String(now + 600) }),
    await hs256({ sub, iat: now, exp: now + 30 * 24 * 3600 }),
    await hs256({ sub, iat: now + 3600, exp: now + 4000 }),
    await hs256({ ...ok, nbf: now + 3600 }),
    await hs256({ ...ok, sub: `0${sub}` }),
    await hs256({ ...ok, sub: `+${sub}` }),
    await hs256({ ...ok, sub: `${sub} ` }),
    await hs256({ ...ok, sub: Number(sub) }),
    await sign(ok, JWT, 'HS512'),
    await sign(ok, `${JWT}-other`, 'HS256'),
    valid.slice(0, -2),
  ];
}

beforeAll(async () => {
  config = testConfig({
    REDIS_TIMEOUT_MS: '2000',
    BODY_TIMEOUT_MS: '300',
    HTTP_HEADERS_TIMEOUT_MS: '400',
  });
  client = await connectTestClient(config);
  const cql = cqlOf(client);
  redis = createRedisGuard(config);
  await redis.waitReady(5000);
  const ids = idsFromWorkers(8190, 1);
  service = new GridService({ cql, config, ids, cursorSecret: 'fuzz-tests-cursor-secret', redis });
  features = service;
  const idempotency = new IdempotencyService(new IdempotencyStore(cql, config.IDEMPOTENCY_TTL_S), {
    heads: (p) => service.readRequestRing(p),
    ttlS: config.IDEMPOTENCY_TTL_S,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
  });
  app = createApp({
    service,
    idempotency,
    adminToken: ADMIN,
    jwtSecret: JWT,
    tokenPolicy: tokenPolicyOf(config),
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    readiness: makeReadiness({ cql, redis }),
    log: (msg, err) => logged.push({ msg, err }),
  });

  const grid = async (n: number) => {
    const profile = ids.next();
    const posts: bigint[] = [];
    for (let i = 0; i < n; i++) {
      posts.push((await service.createPost(profile, { caption: `p${i}` })).value.postId);
    }
    return { profile, posts };
  };
  const ref = await grid(6);
  await service.move(ref.profile, ref.posts[0]!, ref.posts[3]!);
  await features.setPins(ref.profile, [ref.posts[4]!]);
  // Owner-only state on the reference grid: an archived post and an invitation not yet accepted.
  const archived = (await service.createPost(ref.profile, { caption: ARCHIVED_CAPTION })).value;
  await features.archivePost(ref.profile, archived.postId);
  pendingInvitee = ids.next();
  const duet = await service.createPost(ref.profile, {
    caption: 'duet',
    collaborators: [pendingInvitee],
  });
  ref.posts.push(archived.postId, duet.value.postId);
  const players = [await grid(3), await grid(3)];
  const firstPage = await service.pages.page({ profileId: ref.profile, limit: 2 });
  world = {
    refProfile: ref.profile.toString(),
    refPosts: ref.posts.map(String),
    refEtag: (await features.readOrder(ref.profile)).etag,
    refCursors: firstPage.nextCursor ? [firstPage.nextCursor] : [],
    players: players.map((p) => ({ profile: p.profile.toString(), posts: p.posts.map(String) })),
    playerTokens: await Promise.all(players.map((p) => issueToken(JWT, p.profile))),
    refusedTokens: await refusedTokensFor(ref.profile.toString()),
    adminToken: ADMIN,
  };
});

afterAll(async () => {
  await redis?.close();
  await client?.shutdown();
});

describe('HTTP fuzz', () => {
  it('refuses every crafted credential of the reference owner on its own', async () => {
    for (const token of world.refusedTokens) {
      const res = await app.request('/v1/me/grid/reset', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, token).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('never answers 5xx (but 503 + Retry-After), answers 4xx as problem+json, and leaves the reference grid alone', async () => {
    const profile = BigInt(world.refProfile);
    const before = await snapshot(profile);
    const statuses = new Map<number, number>();
    let unsendable = 0;

    await fc.assert(
      fc.asyncProperty(fuzzRequest(world), async (r) => {
        let req: Request;
        try {
          req = new Request(`http://fuzz.test${r.path}`, {
            method: r.method,
            headers: r.headers,
            ...(r.body !== undefined ? { body: r.body } : {}),
          });
        } catch {
          unsendable++; // a client could not send it either (bad header value, bad URL)
          return;
        }
        const res = await app.request(req);
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // Nobody here is the reference owner (its credentials are all refused): nothing of its
        // owner-only state may show, by any route.
        expect(text, `${r.method} ${r.path} as ${r.as}`).not.toContain(ARCHIVED_CAPTION);
        if (r.path.startsWith(`/v1/profiles/${world.refProfile}/grid/changes`)) {
          expect(text, `${r.method} ${r.path} as ${r.as}`).not.toMatch(
            /"kind":"(archived|unarchived|collaborator_[a-z]+)"/,
          );
        }
        expect(text, `${r.method} ${r.path} as ${r.as}`).not.toMatch(
          new RegExp(`"collaborators":\\[[^\\]]*"${pendingInvitee}"`),
        );
        if (res.status >= 500) {
          expect(res.status, text).toBe(503);
          expect(res.headers.get('retry-after')).toMatch(/^[0-9]+$/);
        }
        if (r.mustRefuse) {
          expect(
            res.status,
            `${r.method} ${r.path} must be refused: ${text}`,
          ).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
        }
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toBe('application/problem+json');
          if (r.method !== 'HEAD') {
            const problem = JSON.parse(text) as Record<string, unknown>;
            expect(problem.status).toBe(res.status);
            expect(problem.type).toBe(`https://regrid.dev/problems/${String(problem.code)}`);
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );

    expect(logged).toEqual([]);
    expect(await snapshot(profile)).toEqual(before);
    expect((await features.auditProfile(profile)).findings).toEqual([]);
    // The fuzz must reach the handlers, not only bounce off one check.
    expect(unsendable).toBeLessThan(RUNS / 10);
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 400, 401, 404, 413]));
    const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect((statuses.get(401) ?? 0) / answered).toBeLessThan(0.5);
  });

  it('slow and partial requests on real sockets: each a 408 (a 413 past the limit) and a close, never 5xx', async () => {
    const profile = BigInt(world.refProfile);
    const before = await snapshot(profile);
    const options = serverOptionsOf(config);
    const server = await new Promise<Server>((resolve) => {
      const s: Server = serve(
        { fetch: app.fetch, ...options, port: 0, hostname: '127.0.0.1' },
        () => resolve(s),
      ) as Server;
    });
    const port = (server.address() as AddressInfo).port;
    const paths = [
      '/v1/me/grid/moves',
      '/v1/me/posts',
      '/v1/me/grid/pins',
      '/v1/me/grid/reset',
      `/v1/profiles/${world.refProfile}/grid`,
      `/v1/me/posts/${world.refPosts[0]}`,
      '/v1/admin/takedowns',
      '/no-such-route',
    ];
    const tokens = [...world.playerTokens, world.refusedTokens[0]!, world.adminToken];
    const requests = fc.sample(stalledRequest(paths, tokens), { seed: SEED, numRuns: 60 });
    try {
      // All at once: each waits out a timeout of the server's (300 / 400 ms, checked every 100).
      const answers = await Promise.all(requests.map((r) => sendStalled(port, r, 3_000)));
      requests.forEach((r, i) => {
        const a = answers[i]!;
        const said = `${r.stall} ${r.method} ${r.path}: ${a.status} ${a.body}`;
        expect(a.closed, said).toBe(true);
        if (r.stall === 'headers') return void expect(a.status, said).toBe(408); // Node's own
        const declared =
          r.stall === 'short-length' ? Math.max(r.declared, Buffer.byteLength(r.sent) + 1) : 0;
        const over = (r.stall === 'no-body' ? r.declared : declared) > config.BODY_LIMIT_BYTES;
        expect(a.status, said).toBe(over ? 413 : 408);
        expect(a.headers['content-type'], said).toBe('application/problem+json');
        expect(a.headers['connection'], said).toBe('close');
        expect(JSON.parse(a.body).code, said).toBe(over ? 'payload_too_large' : 'request_timeout');
      });
      const stalls = new Set(requests.map((r) => r.stall));
      expect(stalls.size, 'every kind of stall was tried').toBe(5);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(logged).toEqual([]);
    expect(await snapshot(profile)).toEqual(before);
  });
});
