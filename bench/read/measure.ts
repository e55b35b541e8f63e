/**
 * The read benchmark's three measurements, each against real Cassandra + Redis over loopback
 * HTTP: steady-state first-page throughput (cache hit, cache miss, bare Hono ceiling), the
 * thundering herd after a version change (with and without leases), and cold/warm latency of the
 * first page and page 5 as the override count grows.
 */
import { Hono } from 'hono';
import { cacheKeys, renderedSuffix } from '../../src/cache/keys.js';
import type { Config } from '../../src/config.js';
import type { RedisGuard } from '../../src/cache/redis.js';
import type { GridService } from '../../src/service/grid-service.js';
import { cannon, herdClients, listen, timedGet } from './http.js';
import type { LoadResult } from './http.js';

export interface Bench {
  readonly guard: RedisGuard;
  /** Names the services' cursor secret in rendered-page keys (cache/keys.ts). */
  readonly cursorKeyId: string;
  /** Cassandra statements issued so far (a counting Cql under every service). */
  queries(): number;
  /** A service + app on a port; `tuning` selects leases/bypass, `config` overrides settings. */
  serve(
    tuning: { leases?: boolean; bypass?: boolean },
    config?: Partial<Config>,
  ): Promise<{
    service: GridService;
    base: string;
    close(): Promise<void>;
  }>;
}

const firstPage = (profileId: bigint, limit = 24) =>
  `/v1/profiles/${profileId}/grid?limit=${limit}`;

export interface ThroughputReport {
  readonly responseBytes: number;
  readonly bare: LoadResult;
  /** A Hono route answering with one Redis GET of a value the size of the page. */
  readonly redisFloor: LoadResult;
  /** Every tier: the process-local rendering first, then Redis. */
  readonly cached: LoadResult;
  /** Rendered pages from Redis only (CACHE_LOCAL_TTL_MS=0): the cross-process hit. */
  readonly cachedRedis: LoadResult;
  /** Without rendered pages: the cached order + bodies, decoded and rendered per request. */
  readonly cachedOrder: LoadResult;
  /** The same first page with If-None-Match of its ETag: 304s. */
  readonly notModified: LoadResult;
  readonly miss: LoadResult;
  readonly cachedFillsDuringRun: number;
}

/** Warm-up (JIT, caches), then the measured run. */
async function measure(url: string, seconds: number, connections: number, opts = {}) {
  await cannon(url, 1, connections, opts);
  return cannon(url, seconds, connections, opts);
}

export async function throughput(
  bench: Bench,
  profileId: bigint,
  seconds: number,
  connections: number,
): Promise<ThroughputReport> {
  const servers = [
    await bench.serve({}),
    await bench.serve({}, { CACHE_LOCAL_TTL_MS: 0 }),
    await bench.serve({}, { CACHE_RENDERED_PAGES: false }),
    await bench.serve({ bypass: true }, { CACHE_RENDERED_PAGES: false }),
  ];
  const [cached, redisOnly, orderOnly, miss] = servers as [Served, Served, Served, Served];
  const floorKey = `bench:floor:{${profileId}}`;
  try {
    const path = firstPage(profileId);
    // Twice: the first read fills the order cache, the second renders a page from it and keeps it.
    await timedGet(cached.base + path);
    const { body, etag } = await timedGet(cached.base + path);
    await bench.guard.client.set(floorKey, body, 'EX', 600);
    // The ceilings: the same bytes from a route that does nothing, and from one Redis GET.
    const bare = new Hono();
    bare.get('/bare', (c) => c.body(body, 200, { 'content-type': 'application/json' }));
    bare.get('/floor', async (c) =>
      c.body((await bench.guard.client.get(floorKey)) ?? '', 200, {
        'content-type': 'application/json',
      }),
    );
    const ceilings = await listen(bare);
    try {
      const bareResult = await measure(ceilings.base + '/bare', seconds, connections);
      const floorResult = await measure(ceilings.base + '/floor', seconds, connections);
      const fills0 = cached.service.caches!.grid.stats.fills;
      const cachedResult = await measure(cached.base + path, seconds, connections);
      const fills = cached.service.caches!.grid.stats.fills - fills0;
      const notModified = await measure(cached.base + path, seconds, connections, {
        headers: { 'if-none-match': etag },
        expect: 304,
      });
      const cachedRedis = await measure(redisOnly.base + path, seconds, connections);
      const cachedOrder = await measure(orderOnly.base + path, seconds, connections);
      const missResult = await measure(miss.base + path, seconds, connections);
      return {
        responseBytes: Buffer.byteLength(body),
        bare: bareResult,
        redisFloor: floorResult,
        cached: cachedResult,
        cachedRedis,
        cachedOrder,
        notModified,
        miss: missResult,
        cachedFillsDuringRun: fills,
      };
    } finally {
      await ceilings.close();
    }
  } finally {
    await bench.guard.client.del(floorKey);
    for (const s of servers) await s.close();
  }
}

type Served = Awaited<ReturnType<Bench['serve']>>;

export interface HerdReport {
  readonly readers: number;
  readonly fills: number;
  readonly cassandraQueries: number;
  readonly leaseWaits: number;
  readonly directReads: number;
  readonly non200: number;
}

/** Warm the hot profile, move one post (new version), then `readers` simultaneous first pages. */
export async function herd(
  bench: Bench,
  profileId: bigint,
  readers: number,
  leases: boolean,
): Promise<HerdReport> {
  const s = await bench.serve({ leases });
  try {
    const url = s.base + firstPage(profileId);
    const page = JSON.parse((await timedGet(url)).body) as { items: Array<{ id: string }> };
    const last = page.items[page.items.length - 1]!;
    const clients = await herdClients(url, readers);
    const stats = s.service.caches!.grid.stats;
    const snapshot = () => ({ ...stats, queries: bench.queries() });
    let before = snapshot();
    let statuses: number[];
    try {
      await clients.open();
      await s.service.move(profileId, BigInt(last.id), null); // stores the order, drops the summary
      before = snapshot();
      statuses = await clients.fire();
    } finally {
      clients.close();
    }
    return {
      readers,
      fills: stats.fills - before.fills,
      cassandraQueries: bench.queries() - before.queries,
      leaseWaits: stats.leaseWaits - before.leaseWaits,
      directReads: stats.directReads - before.directReads,
      non200: statuses.filter((x) => x !== 200).length,
    };
  } finally {
    await s.close();
  }
}

export interface DepthReport {
  readonly overrides: number;
  /** Reordered copies built for the profile before the measurement (0 below the threshold). */
  readonly copiesBuilt: number;
  readonly coldFirstPageMs: number;
  readonly warmFirstPageMs: number;
  readonly page5Ms: number;
  readonly warmPage5Ms: number;
  /** Median Cassandra statements per read, same four reads (bodies included when cold). */
  readonly statements: {
    readonly coldFirstPage: number;
    readonly warmFirstPage: number;
    readonly page5: number;
    readonly warmPage5: number;
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 100) / 100;
};

/** Cold = nothing of the profile in Redis (summary, orders, override lists, bodies read). */
export async function depth(
  bench: Bench,
  profileId: bigint,
  overrides: number,
  samples: number,
): Promise<DepthReport> {
  const s = await bench.serve({});
  try {
    const first = s.base + firstPage(profileId);
    let cursor: string | undefined;
    const bodies = new Set<string>();
    for (let page = 1; page <= 4; page++) {
      const url = cursor ? `${first}&cursor=${cursor}` : first;
      const json = JSON.parse((await timedGet(url)).body);
      for (const item of json.items) bodies.add(item.id);
      cursor = json.next_cursor;
    }
    const page5 = `${first}&cursor=${cursor}`;
    for (const item of JSON.parse((await timedGet(page5)).body).items) bodies.add(item.id);
    // A profile with many overrides gets its reordered copy off the request path: measure the
    // state users see once it is built (until then pages merge, as the 0-override rows do).
    await s.service.copies.settled();
    const copiesBuilt = s.service.copies.stats.built;

    // The profile does not change during this measurement, so its cache keys are known exactly.
    const { generation, version } = await s.service.reader.readHead(profileId);
    const keys = [
      cacheKeys.summary(profileId),
      cacheKeys.lease(profileId),
      cacheKeys.order(profileId, generation, version),
      cacheKeys.rendered(profileId, generation, version, renderedSuffix(24, bench.cursorKeyId)),
      cacheKeys.overrides(profileId, generation, version),
      ...[...bodies].map((id) => cacheKeys.post(BigInt(id))),
    ];
    const forget = async () => {
      await bench.guard.client.del(keys);
      s.service.caches!.rendered?.forget(profileId, { generation: 0n, version: 0n });
    };
    const run = async (url: string, cold: boolean) => {
      const ms: number[] = [];
      const statements: number[] = [];
      for (let i = 0; i < samples; i++) {
        if (cold) await forget();
        const q0 = bench.queries();
        ms.push((await timedGet(url)).ms);
        statements.push(bench.queries() - q0);
      }
      return { ms: median(ms), statements: median(statements) };
    };
    const coldFirst = await run(first, true);
    const warmFirst = await run(first, false);
    const cold5 = await run(page5, true);
    const warm5 = await run(page5, false);
    return {
      overrides,
      copiesBuilt,
      coldFirstPageMs: coldFirst.ms,
      warmFirstPageMs: warmFirst.ms,
      page5Ms: cold5.ms,
      warmPage5Ms: warm5.ms,
      statements: {
        coldFirstPage: coldFirst.statements,
        warmFirstPage: warmFirst.statements,
        page5: cold5.statements,
        warmPage5: warm5.statements,
      },
    };
  } finally {
    await s.close();
  }
}
