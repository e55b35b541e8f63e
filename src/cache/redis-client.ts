/**
 * The ioredis client behind the guard (redis.ts): a single Redis (the default), a Redis Cluster
 * (REDIS_URL `redis+cluster://…` or REDIS_CLUSTER_NODES, src/redis-target.ts), or the primary
 * that Redis Sentinel names (REDIS_SENTINELS). TLS (`rediss`) takes its CA, client certificate
 * and hostname check from REDIS_TLS_* (src/tls-options.ts).
 *
 * Both are set up to fail fast rather than wait, because every caller has a Cassandra path:
 * no offline queue, no per-request retries, a command timeout. For a cluster that also means no
 * retry loops inside ioredis on a dead master or a failed cluster (CONNECTION_CLOSED,
 * CLUSTERDOWN, TRYAGAIN are answered at once); only MOVED/ASK redirections are followed, a few
 * times, since those are answered by a live node within the same call. Auto-pipelining groups
 * the commands issued in one tick per master, which is how bodies in other slots are fetched in
 * one round trip per master (redis-batch.ts).
 */
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { RedisTarget } from '../redis-target.js';
import { tlsFilesOf, tlsOptionsOf, type TlsSettings } from '../tls-options.js';

export type RedisClient = Redis | Cluster;

export const isCluster = (client: RedisClient): client is Cluster => client instanceof Cluster;

/** Node `tls.connect` options from REDIS_TLS_* (files read now), for a `rediss` target. */
export const redisTlsOf = (config: TlsSettings<'REDIS'>): ConnectionOptions =>
  tlsOptionsOf(tlsFilesOf(config, 'REDIS'), 'REDIS_TLS');

/** Whether the target is reached over TLS (`rediss://`, `rediss+cluster://`). */
export const usesTls = (target: RedisTarget): boolean =>
  target.kind === 'single' ? /^rediss:/i.test(target.url) : target.tls;

/** `tls` applies only when the target uses TLS (usesTls); otherwise it is ignored. */
export function createRedisClient(
  target: RedisTarget,
  timeoutMs: number,
  tls: ConnectionOptions = {},
): RedisClient {
  const secure = usesTls(target) ? { tls } : {};
  const connection: RedisOptions = {
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs * 4, 500),
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  };
  // Keep reconnecting forever, backing off to 2 s, so the cache comes back by itself.
  const backoff = (attempt: number) => Math.min(attempt * 100, 2000);
  if (target.kind === 'single') {
    return new Redis(target.url, {
      ...connection,
      ...secure,
      enableOfflineQueue: false,
      // Commands issued in the same tick by concurrent requests leave in one socket write: a
      // write syscall per command was the largest single cost of a move in Node's profile.
      enableAutoPipelining: true,
      retryStrategy: backoff,
    });
  }
  if (target.kind === 'sentinel') {
    // ioredis asks the sentinels for the primary at every (re)connection and listens for their
    // +switch-master, so a failover is followed: the old primary's socket closes, the guard
    // fails fast meanwhile (no queue), and the next connection goes to the promoted replica.
    return new Redis({
      ...connection,
      sentinels: target.sentinels.map((n) => ({ host: n.host, port: n.port })),
      name: target.name,
      db: target.db,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      // TLS to the primary and to the sentinels alike (ioredis keeps them apart).
      ...(target.tls ? { tls, enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
      sentinelCommandTimeout: connection.connectTimeout!,
      sentinelRetryStrategy: backoff,
      failoverDetector: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      retryStrategy: backoff,
    });
  }
  return new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      redisOptions: {
        ...connection,
        ...(target.username ? { username: target.username } : {}),
        ...(target.password ? { password: target.password } : {}),
        ...secure,
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
  );
}

/**
 * Sentinel only: connects `client` again whenever it ends while `closing()` is false. ioredis
 * 5.x ends a Sentinel client for good (status `end`, no more retries) when the failover
 * detector's `+switch-master` disconnects it while it is still asking the sentinels for the
 * primary ("Connection is closed."): seen in test/integration/cache/redis-sentinel.test.ts, both
 * guards degraded for the rest of the run after a failover. Nobody asked it to end, so it
 * reconnects after the same backoff as any reconnection.
 */
export function reconnectWhenEnded(client: RedisClient, closing: () => boolean): void {
  let attempt = 0;
  client.on('ready', () => void (attempt = 0));
  client.on('end', () => {
    if (closing()) return;
    setTimeout(
      () => {
        if (closing() || client.status !== 'end') return;
        client.connect().catch(() => undefined);
      },
      Math.min(++attempt * 100, 2000),
    );
  });
}
