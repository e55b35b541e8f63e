/**
 * The ioredis client behind the guard (redis.ts): a single Redis (the default) or a Redis Cluster
 * (REDIS_URL `redis+cluster://…` or REDIS_CLUSTER_NODES, src/redis-target.ts).
 *
 * Both are set up to fail fast rather than wait, because every caller has a Cassandra path:
 * no offline queue, no per-request retries, a command timeout. For a cluster that also means no
 * retry loops inside ioredis on a dead master or a failed cluster (CONNECTION_CLOSED,
 * CLUSTERDOWN, TRYAGAIN are answered at once); only MOVED/ASK redirections are followed, a few
 * times, since those are answered by a live node within the same call. Auto-pipelining groups
 * the commands issued in one tick per master, which is how bodies in other slots are fetched in
 * one round trip per master (redis-batch.ts).
 */
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { RedisTarget } from '../redis-target.js';
import { traceCommands } from './redis-spans.js';

export type RedisClient = Redis | Cluster;

export const isCluster = (client: RedisClient): client is Cluster => client instanceof Cluster;

export function createRedisClient(target: RedisTarget, timeoutMs: number): RedisClient {
  const connection: RedisOptions = {
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs * 4, 500),
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  };
  // Keep reconnecting forever, backing off to 2 s, so the cache comes back by itself.
  const backoff = (attempt: number) => Math.min(attempt * 100, 2000);
  if (target.kind === 'single') {
    return traceCommands(
      new Redis(target.url, {
        ...connection,
        enableOfflineQueue: false,
        // Commands issued in the same tick by concurrent requests leave in one socket write: a
        // write syscall per command was the largest single cost of a move in Node's profile.
        enableAutoPipelining: true,
        retryStrategy: backoff,
      }),
    );
  }
  return traceCommands(
    new Cluster(
      target.nodes.map((n) => ({ host: n.host, port: n.port })),
      {
        redisOptions: {
          ...connection,
          ...(target.username ? { username: target.username } : {}),
          ...(target.password ? { password: target.password } : {}),
          ...(target.tls ? { tls: {} } : {}),
        },
        enableOfflineQueue: false,
        enableAutoPipelining: true,
        clusterRetryStrategy: backoff,
        maxRedirections: 4,
        retryDelayOnFailover: 0,
        retryDelayOnClusterDown: 0,
        retryDelayOnTryAgain: 0,
        slotsRefreshTimeout: Math.max(timeoutMs * 4, 500),
      },
    ),
  );
}
