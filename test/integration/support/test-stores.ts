/**
 * Picks and provisions the stores for an integration-test run (used by
 * test/integration/global-setup.ts):
 *
 * 1. CASSANDRA_CONTACT_POINTS set → use that cluster as is.
 * 2. Something already answers CQL on 127.0.0.1:CASSANDRA_PORT → reuse it (cheapest).
 * 3. A Docker engine answers (and REGRID_TEST_STORES ≠ local) → testcontainers (cassandra:5.0.8).
 * 4. Otherwise → the Maven-assembled node (ensureCassandra), left running for the next run.
 * Redis likewise: a `rediss://` REDIS_URL as configured (it must answer over TLS); REDIS_URL if it
 * answers, else a redis:7 container, else a local redis-server.
 */
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { Config } from '../../../src/config/config.js';
import {
  detectContainerRuntime,
  startCassandraContainer,
  startRedisContainer,
  type StartedStore,
} from '../../../tools/infra/container-runtime.js';
import { LOCAL_DC, nodeLayout } from '../../../tools/infra/cassandra-files.js';
import { probeCql } from '../../../tools/infra/cql-probe.js';
import { ensureCassandra, liveNodePid } from '../../../tools/infra/embedded-cassandra.js';
import { ensureRedis, redisAnswers } from '../../../tools/infra/redis-local.js';

export interface TestStores {
  readonly cassandra: {
    readonly host: string;
    readonly port: number;
    readonly localDataCenter: string;
    readonly how: string;
    /** True when it is the node regrid launched from Maven here (nodetool/sstablemetadata work). */
    readonly embedded: boolean;
  };
  readonly redis: { readonly url: string; readonly how: string };
  /** Stops only what this call started in containers; the Maven node and local Redis stay up. */
  readonly stop: () => Promise<void>;
}

/** "host", "host:port" or "[v6]:port" → host and port. */
function splitHostPort(point: string, defaultPort: number): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::([0-9]+))?$/.exec(point);
  if (bracketed) return { host: bracketed[1] ?? point, port: Number(bracketed[2] ?? defaultPort) };
  const plain = /^([^:]+):([0-9]+)$/.exec(point);
  return plain
    ? { host: plain[1] ?? point, port: Number(plain[2]) }
    : { host: point, port: defaultPort };
}

export async function provisionTestStores(
  config: Config,
  log: (l: string) => void,
): Promise<TestStores> {
  const started: StartedStore[] = [];
  const mode = config.REGRID_TEST_STORES;
  let runtime: Promise<boolean> | undefined;
  // Ask for the engine at most once, and only when a choice depends on it.
  const engine = () =>
    (runtime ??=
      mode === 'local'
        ? Promise.resolve(false)
        : detectContainerRuntime().then((r) => {
            log(`container engine: ${r.available ? r.detail : `none (${r.detail})`}`);
            if (mode === 'containers' && !r.available) {
              throw new Error(`REGRID_TEST_STORES=containers but no container engine: ${r.detail}`);
            }
            return r.available;
          }));

  let cassandra: TestStores['cassandra'];
  const first = config.CASSANDRA_CONTACT_POINTS[0];
  if (first !== undefined) {
    const { host, port } = splitHostPort(first, config.CASSANDRA_PORT);
    cassandra = {
      host,
      port,
      localDataCenter: config.CASSANDRA_LOCAL_DC,
      how: 'configured contact points',
      embedded: false,
    };
  } else {
    const local = { host: '127.0.0.1', port: config.CASSANDRA_PORT, localDataCenter: LOCAL_DC };
    const running = mode === 'containers' ? undefined : await probeCql(local);
    if (running) {
      cassandra = {
        ...local,
        how: `reused Cassandra ${running} already running`,
        embedded: liveNodePid(nodeLayout(config)) !== undefined,
      };
    } else if (await engine()) {
      log('starting cassandra container (testcontainers)…');
      const c = await startCassandraContainer();
      started.push(c);
      const { host, port } = splitHostPort(c.contactPoint, 9042);
      cassandra = {
        host,
        port,
        localDataCenter: c.localDataCenter,
        how: 'testcontainers cassandra:5.0.8',
        embedded: false,
      };
    } else {
      const t = await ensureCassandra(config, { log: (l) => log(`[cassandra] ${l}`) });
      cassandra = {
        ...local,
        how: `Maven-provisioned node (${t.origin}, Cassandra ${t.releaseVersion})`,
        embedded: true,
      };
    }
  }

  let redis: TestStores['redis'];
  const redisUrl = new URL(config.REDIS_URL);
  if (redisUrl.protocol === 'rediss:') {
    // A TLS Redis (the TLS-only suite, tools/test-over-tls.ts) is never provisioned: it must
    // answer a PING over TLS with REDIS_TLS_* (the plain probe below would be refused).
    const guard = createRedisGuard(config, { log: () => {} });
    const ready = await guard.waitReady(10_000);
    await guard.close();
    if (!ready) throw new Error(`integration tests: ${config.REDIS_URL} does not answer over TLS`);
    redis = { url: config.REDIS_URL, how: 'configured TLS Redis' };
  } else if (await redisAnswers(redisUrl.hostname || '127.0.0.1', Number(redisUrl.port || 6379))) {
    redis = { url: config.REDIS_URL, how: 'reused' };
  } else if (await engine()) {
    const r = await startRedisContainer();
    started.push(r);
    redis = { url: r.url, how: 'testcontainers redis:7' };
  } else {
    const r = await ensureRedis(config, (l) => log(`[redis] ${l}`));
    if (r.origin === 'absent') throw new Error(`integration tests need Redis: ${r.detail}`);
    redis = { url: r.url, how: r.detail };
  }

  return {
    cassandra,
    redis,
    stop: async () => {
      for (const s of started.reverse()) await s.stop().catch(() => undefined);
    },
  };
}
