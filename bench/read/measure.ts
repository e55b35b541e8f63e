/**
 * Two of the read benchmark's measurements, each against real Cassandra + Redis over loopback
 * HTTP: steady-state first-page throughput (cache hit, 304, cache miss, the bare Hono and one
 * Redis GET ceilings) in interleaved rounds, and the thundering herd after a version change
 * (with leases, the only way src/ fills). Latency by override count is in depth.ts.
 */
import { Hono } from 'hono';
import type { Config } from '../../src/config/config.js';
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
  /**
   * A service + app on a port; `redis: false` builds it without Redis (every page from
   * Cassandra: the miss comparator), `config` overrides settings.
   */
  serve(
    opts: { redis?: boolean },
    config?: Partial<Config>,
  ): Promise<{
    service: GridService;
    base: string;
    close(): Promise<void>;
  }>;
}

const firstPage = (profileId: bigint, limit = 24) =>
  `/v1/profiles/${profileId}/grid?limit=${limit}`;

/** A configuration's runs: medians over the rounds, errors and requests summed. */
export interface Measured extends LoadResult {
  /** requests/s of each round, in order. */
  readonly roundsRps: readonly number[];
}

export interface ThroughputReport {
  readonly responseBytes: number;
  readonly rounds: number;
  readonly bare: Measured;
  /** A Hono route answering with one Redis GET of a value the size of the page. */
  readonly redisFloor: Measured;
  /** Every tier: the process-local rendering first, then Redis. */
  readonly cached: Measured;
  /** The same first page with If-None-Match of its ETag: 304s. */
  readonly notModified: Measured;
  /** Rendered pages from Redis (a second, identically built service: the cross-process hit). */
  readonly cachedRedis: Measured;
  /** Without rendered pages: the cached order + bodies, decoded and rendered per request. */
  readonly miss: Measured;
  readonly cachedFillsDuringRun: number;
}

type Run = Exclude<keyof ThroughputReport, 'responseBytes' | 'rounds' | 'cachedFillsDuringRun'>;

const middle = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function summary(runs: readonly LoadResult[]): Measured {
  return {
    rps: middle(runs.map((r) => r.rps)),
    p50Ms: middle(runs.map((r) => r.p50Ms)),
    p99Ms: middle(runs.map((r) => r.p99Ms)),
    requests: runs.reduce((n, r) => n + r.requests, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    roundsRps: runs.map((r) => r.rps),
  };
}

/**
 * Every configuration runs once per round, in the same order, `rounds` times; each figure is the
 * median over the rounds. Sequential runs of one configuration after another vary by ±30% on a
 * shared 2-core machine; interleaved, load from other work lands on every configuration alike.
 * The first round starts each configuration with a one-second warm-up (JIT, caches).
 */
export async function throughput(
  bench: Bench,
  profileId: bigint,
  seconds: number,
  connections: number,
  rounds: number,
  log: (line: string) => void = () => {},
): Promise<ThroughputReport> {
  const servers = [
    await bench.serve({}),
    await bench.serve({}),
    await bench.serve({ redis: false }),
  ];
  const [cached, redisOnly, miss] = servers as [Served, Served, Served];
  const floorKey = `bench:floor:{${profileId}}`;
  try {
    const path = firstPage(profileId);
    // The first read fills the cache.
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
    const configs: ReadonlyArray<readonly [Run, string, Parameters<typeof cannon>[3]]> = [
      ['bare', ceilings.base + '/bare', {}],
      ['redisFloor', ceilings.base + '/floor', {}],
      ['cached', cached.base + path, {}],
      ['notModified', cached.base + path, { headers: { 'if-none-match': etag }, expect: 304 }],
      ['cachedRedis', redisOnly.base + path, {}],
      ['miss', miss.base + path, {}],
    ];
    const runs = new Map<Run, LoadResult[]>(configs.map(([name]) => [name, []]));
    let fills = 0;
    try {
      for (let round = 1; round <= rounds; round++) {
        log(`throughput round ${round}/${rounds}…`);
        for (const [name, url, opts] of configs) {
          if (round === 1) await cannon(url, 1, connections, opts);
          const fills0 = cached.service.caches!.grid.stats.fills;
          runs.get(name)!.push(await cannon(url, seconds, connections, opts));
          if (name === 'cached') fills += cached.service.caches!.grid.stats.fills - fills0;
        }
      }
    } finally {
      await ceilings.close();
    }
    const of = (name: Run) => summary(runs.get(name)!);
    return {
      responseBytes: Buffer.byteLength(body),
      rounds,
      bare: of('bare'),
      redisFloor: of('redisFloor'),
      cached: of('cached'),
      notModified: of('notModified'),
      cachedRedis: of('cachedRedis'),
      miss: of('miss'),
      cachedFillsDuringRun: fills,
    };
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
  readonly directReads: number;
  readonly non200: number;
}

/** Warm the hot profile, move one post (new version), then `readers` simultaneous first pages. */
export async function herd(bench: Bench, profileId: bigint, readers: number): Promise<HerdReport> {
  const s = await bench.serve({});
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
      directReads: stats.directReads - before.directReads,
      non200: statuses.filter((x) => x !== 200).length,
    };
  } finally {
    await s.close();
  }
}
