/**
 * Readiness for /readyz: Cassandra answers a trivial local query and Redis answers PING, each
 * within a short bound (READYZ_TIMEOUT_MS) so a hung store makes the probe fail instead of hang.
 * Redis down is reported as `degraded` with status 200 (docs/cache.md); Cassandra down is a 503.
 *
 * Every probe asks again: nothing is remembered between probes, so the first probe after the
 * driver has reconnected (within CASSANDRA_RECONNECT_MAX_MS of the node answering) says ready.
 */
import type { RedisGuard } from '../cache/redis.js';
import { cassandraAnswers } from '../store/health-probe.js';
import type { Cql } from '../store/cassandra.js';

export type CheckState = 'ok' | 'degraded' | 'down';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, CheckState>;
}

export interface ReadinessDeps {
  readonly cql: Cql;
  readonly redis?: RedisGuard | undefined;
  /** Bound on each check; the driver's read timeout for the probe query too. */
  readonly timeoutMs?: number;
}

export function makeReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  const timeoutMs = deps.timeoutMs ?? 500;
  return async function readiness(): Promise<Readiness> {
    const [cassandra, redis] = await Promise.all([
      within(cassandraAnswers(deps.cql, timeoutMs), timeoutMs),
      deps.redis
        ? within(
            deps.redis.run((c) => c.ping()).then((r) => r !== undefined),
            timeoutMs,
          )
        : Promise.resolve(false),
    ]);
    // Redis is an optimisation: without it reads and moves go straight to Cassandra (and the
    // rate limit fails open), so the instance stays ready and only reports the degradation.
    // Cassandra down = not ready (503).
    return {
      ready: cassandra,
      checks: { cassandra: cassandra ? 'ok' : 'down', redis: redis ? 'ok' : 'degraded' },
    };
  };
}

/** Resolves false on rejection or when `p` takes longer than `ms`. */
function within(p: Promise<boolean>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(false);
      },
    );
  });
}
