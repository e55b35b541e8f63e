/**
 * Readiness for /readyz (docs/operating.md): not ready while the process drains (SIGTERM), when
 * Cassandra does not answer a trivial local query, or when some token range of the keyspace has
 * fewer live replicas than the configured consistency levels need (quorum.ts: the writes and
 * reads of the profiles there fail). Redis answers PING or is reported `degraded` with status
 * 200 (docs/cache.md). Each store check is bounded (READYZ_TIMEOUT_MS) so a hung store makes the
 * probe fail instead of hang.
 *
 * Every probe asks again: nothing is remembered between probes, so the first probe after the
 * driver has reconnected (within CASSANDRA_RECONNECT_MAX_MS of the node answering) says ready.
 */
import type { RedisGuard } from '../cache/redis.js';
import { cassandraAnswers } from '../store/health-probe.js';
import type { Cql } from '../store/cassandra.js';
import { describeVerdict, type QuorumVerdict } from './quorum.js';

export type CheckState = 'ok' | 'degraded' | 'down';

export interface Readiness {
  readonly ready: boolean;
  /** True while the process drains: the balancer should stop sending it requests. */
  readonly draining?: boolean;
  readonly checks: Record<string, CheckState>;
  /** Why a check is not `ok`, in words (the replicas' shortfall). */
  readonly detail?: string;
}

export interface ReadinessDeps {
  readonly cql: Cql;
  readonly redis?: RedisGuard | undefined;
  /** Bound on each check; the driver's read timeout for the probe query too. */
  readonly timeoutMs?: number;
  /** True once shutdown began (main.ts): answer 503 at once, probing nothing. */
  readonly draining?: () => boolean;
  /** Live replicas against the consistency levels (quorum.ts); undefined = not known yet. */
  readonly quorum?: () => QuorumVerdict | undefined;
}

export function makeReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  const timeoutMs = deps.timeoutMs ?? 500;
  return async function readiness(): Promise<Readiness> {
    if (deps.draining?.()) return { ready: false, draining: true, checks: { shutdown: 'down' } };
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
    // Cassandra down = not ready (503); so is a replica shortfall that fails the writes.
    const verdict = cassandra ? deps.quorum?.() : undefined;
    const checks: Record<string, CheckState> = { cassandra: cassandra ? 'ok' : 'down' };
    if (verdict) checks['replicas'] = verdict.met ? 'ok' : 'down';
    checks['redis'] = redis ? 'ok' : 'degraded';
    return {
      ready: cassandra && verdict?.met !== false,
      checks,
      ...(verdict && !verdict.met ? { detail: describeVerdict(verdict) } : {}),
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
