/**
 * The reference feed consumer as a command (examples/feed/README.md):
 *
 *   npx tsx examples/feed/main.ts --redis redis://127.0.0.1:6379 --follow 9001:101,102 \
 *     --follow 9002:102 --until-idle-ms 10000
 *
 * Follows what --follow says (follower:profile,profile,…), consumes every shard stream of the
 * change stream in consumer group --group as consumer --consumer, and prints its counts every
 * --report-every-ms on stderr and once more at the end on stdout (--json for one JSON line).
 * Stops on SIGINT/SIGTERM, after --duration-ms, or once no entry came for --until-idle-ms; then,
 * with --check <regrid base URL>, compares the followers' timelines with the grids (check.ts).
 *
 * With --pg (or FEED_PG_URL) the follow graph and per-profile watermarks live in PostgreSQL
 * (store.ts) and the consumer survives a Redis data loss; with --api (or FEED_API_URL, default
 * the --check URL) it repairs profiles from regrid's catch-up route, sending FEED_SERVICE_TOKEN
 * (a service token; only in the environment, never on the command line) as its bearer (api.ts).
 * A `rediss://` --redis trusts REDIS_TLS_CA_FILE and presents REDIS_TLS_CERT_FILE/_KEY_FILE when
 * they are set (regrid's own settings' names, docs/operating.md).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { regridGet } from './api.js';
import { checkFeeds } from './check.js';
import { FeedConsumer, type FeedStats } from './consumer.js';
import { follow, readTimeline } from './graph.js';
import { feedKeysOf, streamKeysOf } from './keys.js';
import type { FeedRedis } from './scripts.js';
import { FeedStore } from './store.js';

const { values } = parseArgs({
  options: {
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    cluster: { type: 'string' },
    'stream-prefix': { type: 'string', default: 'regrid:' },
    shards: { type: 'string', default: '16' },
    'feed-prefix': { type: 'string', default: 'feed:' },
    group: { type: 'string', default: 'feed' },
    consumer: { type: 'string', default: `feed-${process.pid}` },
    follow: { type: 'string', multiple: true, default: [] },
    count: { type: 'string', default: '100' },
    'block-ms': { type: 'string', default: '1000' },
    'min-idle-ms': { type: 'string', default: '30000' },
    'claim-every-ms': { type: 'string', default: '5000' },
    'gap-timeout-ms': { type: 'string', default: '120000' },
    'report-every-ms': { type: 'string', default: '5000' },
    'duration-ms': { type: 'string' },
    'until-idle-ms': { type: 'string' },
    audit: { type: 'boolean', default: false },
    check: { type: 'string' },
    'auto-follow': { type: 'string', default: '0' },
    'auto-pool': { type: 'string', default: '8' },
    'from-now': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    pg: { type: 'string' },
    'pg-schema': { type: 'string' },
    api: { type: 'string' },
  },
});

function int(name: keyof typeof values): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer`);
    process.exit(64);
  }
  return n;
}

const follows: Array<{ follower: string; profiles: string[] }> = (values.follow ?? []).map(
  (spec) => {
    const match = /^(\d+):(\d+(?:,\d+)*)$/.exec(spec);
    if (!match) {
      console.error(`--follow ${spec}: expected follower:profile[,profile…] (decimal IDs)`);
      process.exit(64);
    }
    return { follower: match[1]!, profiles: match[2]!.split(',') };
  },
);

/** ioredis TLS options for a `rediss://` URL from REDIS_TLS_*_FILE (Node's CAs when unset). */
function tlsOf(url: string) {
  if (!/^rediss:/i.test(url)) return {};
  const file = (name: string) => {
    const path = process.env[`REDIS_TLS_${name}_FILE`];
    return path ? { [name.toLowerCase()]: readFileSync(path) } : {};
  };
  return { tls: { ...file('CA'), ...file('CERT'), ...file('KEY') } };
}

// --cluster host:port,host:port reads a Redis Cluster (one read per shard key, consumer.ts).
const redis: FeedRedis = values.cluster
  ? new Cluster(
      values.cluster.split(',').map((hp) => {
        const [host, port] = hp.split(':');
        return { host: host ?? '127.0.0.1', port: Number(port ?? 6379) };
      }),
    )
  : new Redis(values.redis!, tlsOf(values.redis!));
// Reconnecting after a Redis restart is ioredis's job; a command that fails meanwhile rejects
// (the loop below retries the round), so the connection's own error events are only noise.
redis.on('error', () => {});
const keys = feedKeysOf(values['feed-prefix']!);
const env = process.env;
const pgUrl = values.pg ?? env['FEED_PG_URL'];
const store = pgUrl
  ? await FeedStore.open(pgUrl, values['pg-schema'] ?? env['FEED_PG_SCHEMA'] ?? 'feed')
  : undefined;
const apiUrl = values.api ?? env['FEED_API_URL'] ?? values.check;
const api = apiUrl ? regridGet(apiUrl, env['FEED_SERVICE_TOKEN']) : undefined;
// Follows go to the durable store (and Redis) once the consumer exists; without a store, to Redis.
let followOne = (follower: string, profile: string) => follow(redis, keys, follower, profile);

// --auto-follow K: every profile first seen in the stream gets K followers out of a pool of
// --auto-pool (auto-0 … auto-<pool-1>, by profile ID mod pool), so followers share profiles. Its
// first event starts the watermark; with --from-now that is the profile's first write of the run.
const autoK = int('auto-follow');
const pool = Math.max(autoK, int('auto-pool'));
const autoFollow = async (profile: string) => {
  for (let i = 0; i < autoK; i++) {
    const follower = `auto-${Number((BigInt(profile) + BigInt(i)) % BigInt(pool))}`;
    await followOne(follower, profile);
    const entry = follows.find((f) => f.follower === follower);
    if (entry) entry.profiles.push(profile);
    else follows.push({ follower, profiles: [profile] });
  }
};

const consumer = new FeedConsumer(redis, keys, {
  ...(autoK > 0 ? { autoFollow } : {}),
  startAt: values['from-now'] ? '$' : '0',
  streamKeys: streamKeysOf(values['stream-prefix']!, int('shards')),
  group: values.group!,
  consumer: values.consumer!,
  count: Math.max(1, int('count')),
  blockMs: int('block-ms'),
  minIdleMs: int('min-idle-ms'),
  claimEveryMs: int('claim-every-ms'),
  gapTimeoutMs: int('gap-timeout-ms'),
  audit: values.audit!,
  ...(store ? { store } : {}),
  ...(api ? { api } : {}),
});
if (store) followOne = (follower, profile) => consumer.follow(follower, profile);
for (const { follower, profiles } of follows) {
  for (const profile of profiles) await followOne(follower, profile);
}

const line = (s: FeedStats) =>
  `events ${s.events} applied ${s.applied} duplicates-skipped ${s.duplicates} ` +
  `inserts ${s.inserts} removals ${s.removals} kept-by-another-grid ${s.kept} ` +
  `reinserts-refused ${s.reinsertsRefused} deferred ${s.deferred} claimed ${s.claimed} ` +
  `gaps-accepted ${s.gapsAccepted} recoveries ${s.recoveries} repaired ${s.repaired} ` +
  `caught-up ${s.caughtUp} grid-reads ${s.gridReads} resynced ${s.resynced} ` +
  `not-following ${s.notFollowing} malformed ${s.malformed}`;

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
const started = Date.now();
let lastEntry = Date.now();
let lastReport = Date.now();
const durationMs = values['duration-ms'] === undefined ? Infinity : int('duration-ms');
const untilIdleMs = values['until-idle-ms'] === undefined ? Infinity : int('until-idle-ms');

// A round that fails (Redis restarting, the API or PostgreSQL away) is retried: nothing was
// acknowledged that was not applied. Time spent failing does not count as idle.
const retrying = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await work();
  } catch (err) {
    console.error(`[feed ${values.consumer}] ${what}: ${(err as Error).message}; retrying`);
    lastEntry = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    return undefined;
  }
};
const started_ = () => consumer.start().then(() => true);
while (!stop.signal.aborted && (await retrying('start', started_)) === undefined);
while (!stop.signal.aborted) {
  if (((await retrying('poll', () => consumer.poll())) ?? 0) > 0) lastEntry = Date.now();
  const now = Date.now();
  if (now - started >= durationMs || now - lastEntry >= untilIdleMs) break;
  if (now - lastReport >= int('report-every-ms')) {
    lastReport = now;
    console.error(`[feed ${values.consumer}] ${line(consumer.stats)}`);
  }
}

// With the durable store, every follower of the graph (not only those this process was told of).
if (store) follows.splice(0, follows.length, ...(await store.follows()));
// Timelines of the followers, and (with --audit) how many of their posts entered a timeline
// more than once (a removal and a return, e.g. archive then unarchive).
const timelines: Record<string, { posts: number; reentered: number }> = {};
for (const { follower } of follows) {
  const entries = await readTimeline(redis, keys, follower);
  const counts = values.audit ? Object.values(await redis.hgetall(keys.inserts(follower))) : [];
  timelines[follower] = {
    posts: entries.length,
    reentered: counts.filter((c) => Number(c) > 1).length,
  };
}
// --check http://host:port: the feeds against the grids the service shows now.
const check = values.check
  ? await checkFeeds(redis, keys, regridGet(values.check, env['FEED_SERVICE_TOKEN']), follows)
  : undefined;
console.log(
  values.json
    ? JSON.stringify({ ...consumer.stats, timelines, ...(check ? { check } : {}) })
    : [
        line(consumer.stats),
        ...Object.entries(timelines).map(
          ([f, t]) => `timeline ${f}: ${t.posts} posts, ${t.reentered} re-entered`,
        ),
        ...(check
          ? [
              `check against ${values.check}: ${check.followers} followers, ${check.entries} entries, ` +
                `missing ${check.missing}, extra ${check.extra}, misplaced ${check.misplaced}, ` +
                `grids not caught up ${check.behind}`,
            ]
          : []),
      ].join('\n'),
);
await consumer.close();
await store?.close();
redis.disconnect();
