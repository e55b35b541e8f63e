/**
 * The Redis connection and its guard. Redis is an optimisation in regrid: every caller must have
 * a Cassandra path for when this module answers "unavailable", and nothing here may make a request
 * wait longer than REDIS_TIMEOUT_MS.
 *
 * Three mechanisms keep that promise:
 * - ioredis `commandTimeout` plus our own timer (belt and braces: the timer also covers scripts
 *   and pipelines) bound each call;
 * - `enableOfflineQueue: false` and `maxRetriesPerRequest: 0` make a disconnected client reject at
 *   once instead of queueing commands until it reconnects;
 * - a small circuit breaker: after a few consecutive failures the guard stops calling Redis for a
 *   cool-down, so a slow (not dead) Redis costs one timeout per cool-down instead of one per call.
 *
 * `health()` feeds /readyz: "degraded" while disconnected or while the breaker is open.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.js';

export type RedisHealth = 'ok' | 'degraded';

export interface RedisGuard {
  readonly client: Redis;
  /**
   * Runs `op` against Redis. Resolves to `undefined` when Redis is unavailable, slow or the
   * breaker is open; callers then take their Cassandra path. `op` must not itself resolve to
   * `undefined` (ioredis answers `null` for missing keys, so that holds for plain commands).
   */
  run<T>(op: (client: Redis) => Promise<T>): Promise<T | undefined>;
  health(): RedisHealth;
  /** Waits (bounded) until the connection is ready; true when it is. For start-up and tests. */
  waitReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface RedisGuardOptions {
  readonly log?: (msg: string) => void;
}

type Settings = Pick<
  Config,
  'REDIS_URL' | 'REDIS_TIMEOUT_MS' | 'REDIS_BREAKER_FAILURES' | 'REDIS_BREAKER_COOLDOWN_MS'
>;

export function createRedisGuard(config: Settings, options: RedisGuardOptions = {}): RedisGuard {
  const timeoutMs = config.REDIS_TIMEOUT_MS;
  const failureThreshold = config.REDIS_BREAKER_FAILURES;
  const coolDownMs = config.REDIS_BREAKER_COOLDOWN_MS;
  const log = options.log ?? ((msg: string) => console.warn(msg));

  const client = new Redis(config.REDIS_URL, {
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs * 4, 500),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Keep reconnecting forever, backing off to 2 s, so the cache comes back by itself.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });

  let consecutiveFailures = 0;
  let openUntil = 0;
  let reported: RedisHealth = 'ok';

  // Without a listener ioredis prints every connection error; log state changes only.
  client.on('error', () => {});
  let closing = false;
  const report = () => {
    if (closing) return;
    const now = health();
    if (now !== reported) log(`redis: ${now}`);
    reported = now;
  };
  client.on('ready', report);
  client.on('close', report);

  function health(): RedisHealth {
    if (client.status !== 'ready') return 'degraded';
    return Date.now() < openUntil ? 'degraded' : 'ok';
  }

  function onFailure(): void {
    consecutiveFailures += 1;
    if (consecutiveFailures >= failureThreshold) openUntil = Date.now() + coolDownMs;
    report();
  }

  async function run<T>(op: (c: Redis) => Promise<T>): Promise<T | undefined> {
    if (client.status !== 'ready' || Date.now() < openUntil) return undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('redis deadline')), timeoutMs);
      });
      const value = await Promise.race([op(client), deadline]);
      consecutiveFailures = 0;
      if (openUntil !== 0) {
        openUntil = 0;
        report();
      }
      return value;
    } catch {
      onFailure();
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  async function waitReady(ms: number): Promise<boolean> {
    if (client.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(client.status === 'ready'), ms);
      client.on('ready', onReady);
    });
  }

  async function close(): Promise<void> {
    closing = true;
    try {
      await client.quit();
    } catch {
      client.disconnect();
    }
  }

  return { client, run, health, waitReady, close };
}
