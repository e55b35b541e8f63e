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
 * Repairs: work that Redis missed while it did not answer (invalidations a stall swallowed) and
 * that must land before anyone reads through this process again. While a registered repair is
 * pending, `run()` answers "unavailable" (callers read Cassandra), and every
 * REDIS_REPAIR_PROBE_MS the guard PINGs; as soon as Redis answers it runs the repairs, and only
 * once they are all done does it let other calls through. Readers in this process therefore never
 * see what the repair is about to delete. The breaker does not delay a repair: its cool-down
 * keeps ordinary calls away, the probe is one PING.
 *
 * A Redis Cluster (redis-client.ts) goes through the same guard: a dead master makes the calls
 * that reach it fail fast like any other failure, so its profiles read Cassandra (and an
 * invalidation it missed closes the guard until it is repaired, exactly as for a single Redis).
 *
 * `health()` feeds /readyz: "degraded" while disconnected, the breaker is open or a repair is
 * pending.
 */
import type { Context } from '@opentelemetry/api';
import { commandsUnder } from './redis-spans.js';
import type { Config } from '../config/config.js';
import { redisBreakerOpen, redisErrors } from '../obs/metrics.js';
import { redisTargetOf } from '../redis-target.js';
import {
  createRedisClient,
  isCluster,
  reconnectWhenEnded,
  redisTlsOf,
  usesTls,
} from './redis-client.js';
import type { RedisClient } from './redis-client.js';

export type RedisHealth = 'ok' | 'degraded';

export interface RedisGuard {
  readonly client: RedisClient;
  /**
   * True for a Redis Cluster: callers must keep multi-key commands inside one slot and spread
   * the others (redis-batch.ts).
   */
  readonly cluster: boolean;
  /**
   * Runs `op` against Redis. Resolves to `undefined` when Redis is unavailable, slow or the
   * breaker is open; callers then take their Cassandra path. `op` must not itself resolve to
   * `undefined` (ioredis answers `null` for missing keys, so that holds for plain commands).
   * With `trace` (traced work's context), each command `op` sends is spanned under it
   * (redis-spans.ts).
   */
  run<T>(op: (client: RedisClient) => Promise<T>, trace?: Context): Promise<T | undefined>;
  health(): RedisHealth;
  /**
   * Registers work Redis owes (see above). Returns `owe`: call it whenever the repair has become
   * pending; it closes this guard to other calls at once and starts probing.
   */
  addRepair(repair: RedisRepair): () => void;
  /**
   * Redis Sentinel only: `listener` runs as soon as the connection is lost, before any call can
   * reach the next server. That server may be a promoted replica that never received the old
   * primary's last acknowledged writes (replication is asynchronous), invalidations among them;
   * a listener owes a repair (addRepair) that removes what they would have removed.
   */
  onFailover(listener: () => void): void;
  /** Waits (bounded) until the connection is ready; true when it is. For start-up and tests. */
  waitReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A call bounded by REDIS_TIMEOUT_MS that ignores the breaker and pending repairs. */
export type RepairCall = <T>(op: (client: RedisClient) => Promise<T>) => Promise<T | undefined>;

export interface RedisRepair {
  /** True while Redis owes this repair's work. */
  pending(): boolean;
  /** Does the work with `call`; resolves true when nothing is left. Never rejects. */
  settle(call: RepairCall): Promise<boolean>;
}

export interface RedisGuardOptions {
  readonly log?: (msg: string) => void;
  /**
   * A connection the caller owns (an embedding host's, src/embed.ts) instead of one built from the
   * settings: its own options apply (the guard's timer still bounds every call), and close()
   * leaves it open.
   */
  readonly client?: RedisClient;
}

type Settings = Pick<
  Config,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_MASTER'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'REDIS_TLS_CA_FILE'
  | 'REDIS_TLS_CERT_FILE'
  | 'REDIS_TLS_KEY_FILE'
  | 'REDIS_TLS_VERIFY_HOSTNAME'
  | 'REDIS_TLS_SERVERNAME'
  | 'REDIS_TIMEOUT_MS'
  | 'REDIS_BREAKER_FAILURES'
  | 'REDIS_BREAKER_COOLDOWN_MS'
  | 'REDIS_REPAIR_PROBE_MS'
>;

/** This process's own connection: the target the settings name, with their TLS files read. */
function connectionOf(config: Settings): RedisClient {
  const target = redisTargetOf(config);
  const tls = usesTls(target) ? redisTlsOf(config) : {};
  return createRedisClient(target, config.REDIS_TIMEOUT_MS, tls);
}

export function createRedisGuard(config: Settings, options: RedisGuardOptions = {}): RedisGuard {
  const timeoutMs = config.REDIS_TIMEOUT_MS;
  const failureThreshold = config.REDIS_BREAKER_FAILURES;
  const coolDownMs = config.REDIS_BREAKER_COOLDOWN_MS;
  const probeMs = config.REDIS_REPAIR_PROBE_MS;
  const log = options.log ?? ((msg: string) => console.warn(msg));

  const owned = options.client === undefined;
  const client = options.client ?? connectionOf(config);

  let consecutiveFailures = 0;
  let openUntil = 0;
  let reported: RedisHealth = 'ok';
  const repairs: RedisRepair[] = [];
  // Set by a repair's `owe` (addRepair), cleared by `repair` once none is pending: a call of this
  // guard reads one boolean, not every repair's state.
  let owed = false;
  let probe: NodeJS.Timeout | undefined;
  let repairing = false;

  // Without a listener ioredis prints every connection error; log state changes only.
  const quiet = () => {};
  client.on('error', quiet);
  let closing = false;
  // The gauge says whether callers are being sent to Cassandra right now, not a past event.
  let shownOpen = false;
  const showBreaker = (open: boolean) => {
    if (open !== shownOpen) redisBreakerOpen.inc(open ? 1 : -1);
    shownOpen = open;
  };
  const report = () => {
    if (closing) return;
    showBreaker(owed || Date.now() < openUntil);
    const now = health();
    if (now !== reported) log(`redis: ${now}`);
    reported = now;
  };
  client.on('ready', report);
  client.on('close', report);

  // Sentinel: a lost connection may come back to another server (failover). Each close after the
  // first ready tells the listeners at once; ioredis emits it before it reconnects, so their
  // repairs are owed before the next server answers a single call of this guard.
  const sentinel = !isCluster(client) && (client.options.sentinels?.length ?? 0) > 0;
  const failoverListeners: Array<() => void> = [];
  let everReady = client.status === 'ready';
  const onReady = () => void (everReady = true);
  const onClose = () => {
    if (!sentinel || !everReady || closing) return;
    for (const l of failoverListeners) l();
  };
  client.on('ready', onReady);
  client.on('close', onClose);
  if (sentinel && owned) reconnectWhenEnded(client, () => closing);

  function health(): RedisHealth {
    if (client.status !== 'ready' || owed) return 'degraded';
    return Date.now() < openUntil ? 'degraded' : 'ok';
  }

  function onFailure(): void {
    redisErrors.inc();
    consecutiveFailures += 1;
    if (consecutiveFailures >= failureThreshold) {
      openUntil = Date.now() + coolDownMs;
      setTimeout(report, coolDownMs + 1).unref(); // the cool-down's end is no event of its own
    }
    report();
  }

  const call: RepairCall = async <T>(op: (c: RedisClient) => Promise<T>) => {
    if (client.status !== 'ready') return undefined;
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
  };

  async function run<T>(
    op: (c: RedisClient) => Promise<T>,
    trace?: Context,
  ): Promise<T | undefined> {
    if (owed) {
      scheduleRepair();
      return undefined;
    }
    if (Date.now() < openUntil) return undefined;
    return call(trace ? (c) => op(commandsUnder(c, trace)) : op);
  }

  function scheduleRepair(): void {
    if (probe || repairing || closing) return;
    probe = setTimeout(() => {
      probe = undefined;
      void repair();
    }, probeMs);
    probe.unref();
  }

  async function repair(): Promise<void> {
    repairing = true;
    try {
      // The PING is the probe: a stalled Redis costs one queued PING per round, not a batch of
      // deletes it will run late anyway.
      if ((await call((c) => c.ping())) !== undefined) {
        for (const r of repairs) {
          if (r.pending() && !(await r.settle(call))) break;
        }
      }
    } catch (err) {
      log(`redis: repair failed, will retry: ${(err as Error).message}`);
    } finally {
      repairing = false;
    }
    owed = repairs.some((r) => r.pending());
    if (owed) scheduleRepair();
    else report();
  }

  function addRepair(r: RedisRepair): () => void {
    repairs.push(r);
    return () => {
      owed = true;
      report();
      scheduleRepair();
    };
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
    showBreaker(false);
    clearTimeout(probe);
    if (!owned) {
      client.off('error', quiet).off('ready', report).off('close', report);
      client.off('ready', onReady).off('close', onClose);
      return;
    }
    try {
      await client.quit();
    } catch {
      client.disconnect();
    }
  }

  const onFailover = (listener: () => void) => void failoverListeners.push(listener);
  return {
    client,
    cluster: isCluster(client),
    run,
    health,
    addRepair,
    onFailover,
    waitReady,
    close,
  };
}
