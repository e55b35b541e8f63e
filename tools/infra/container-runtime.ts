/**
 * Docker engine detection and the testcontainers path for integration tests.
 *
 * testcontainers is a devDependency: it is imported lazily, so the service (and a production
 * image built with `npm ci --omit=dev`) never loads it. Detection asks testcontainers itself
 * (`getContainerRuntimeClient()` throws "Could not find a working container runtime strategy"
 * when there is no engine); with no socket and no DOCKER_HOST that takes milliseconds. A time
 * cap guards against a configured but unreachable remote engine.
 */

export interface RuntimeInfo {
  readonly available: boolean;
  readonly detail: string;
}

const DETECT_TIMEOUT_MS = 5000;

export const CASSANDRA_IMAGE = 'cassandra:5.0.8';
export const REDIS_IMAGE = 'redis:7';

let cached: Promise<RuntimeInfo> | undefined;

/** Whether a working container engine is reachable (memoised for the process). */
export function detectContainerRuntime(): Promise<RuntimeInfo> {
  cached ??= detect();
  return cached;
}

async function detect(): Promise<RuntimeInfo> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch {
    return { available: false, detail: 'testcontainers is not installed' };
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RuntimeInfo>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          available: false,
          detail: `no answer from a container engine in ${DETECT_TIMEOUT_MS}ms`,
        }),
      DETECT_TIMEOUT_MS,
    );
    timer.unref();
  });
  const probe = tc.getContainerRuntimeClient().then(
    (client): RuntimeInfo => ({
      available: true,
      detail: `${client.info.containerRuntime.host} (${client.info.containerRuntime.serverVersion ?? 'unknown version'})`,
    }),
    (err: unknown): RuntimeInfo => ({
      available: false,
      detail: err instanceof Error ? err.message : String(err),
    }),
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface StartedStore {
  readonly stop: () => Promise<void>;
}

export interface CassandraContainerFacts extends StartedStore {
  readonly contactPoint: string; // host:port
  readonly localDataCenter: string;
}

/**
 * JVM options for the container, matching the Maven node: testcontainers' fast-start flags plus
 * Paxos v2 and no auto-snapshots. The image's yaml has neither, but 5.0 reads yaml overrides
 * from `cassandra.settings.*` system properties once `allow_system_properties` is on.
 */
export const CONTAINER_JVM_EXTRA_OPTS = [
  '-Dcassandra.skip_wait_for_gossip_to_settle=0',
  '-Dcassandra.initial_token=0',
  '-Dcassandra.config.allow_system_properties=true',
  '-Dcassandra.settings.paxos_variant=v2',
  '-Dcassandra.settings.auto_snapshot=false',
].join(' ');

/** Starts cassandra:5.0.8 (heap 1G) with the flags above. */
export async function startCassandraContainer(): Promise<CassandraContainerFacts> {
  const { CassandraContainer } = await import('@testcontainers/cassandra');
  // CassandraContainer.start() sets its own JVM_EXTRA_OPTS; this hook runs after it, and a later
  // entry of the same variable wins.
  class RegridCassandraContainer extends CassandraContainer {
    protected override async beforeContainerCreated(): Promise<void> {
      this.withEnvironment({ JVM_EXTRA_OPTS: CONTAINER_JVM_EXTRA_OPTS });
    }
  }
  const started = await new RegridCassandraContainer(CASSANDRA_IMAGE)
    .withEnvironment({ MAX_HEAP_SIZE: '1G', HEAP_NEWSIZE: '200M' })
    .start();
  return {
    contactPoint: started.getContactPoint(),
    localDataCenter: started.getDatacenter(),
    stop: async () => {
      await started.stop();
    },
  };
}

export interface RedisContainerFacts extends StartedStore {
  readonly url: string;
}

export async function startRedisContainer(): Promise<RedisContainerFacts> {
  const { RedisContainer } = await import('@testcontainers/redis');
  const started = await new RedisContainer(REDIS_IMAGE).start();
  return {
    url: started.getConnectionUrl(),
    stop: async () => {
      await started.stop();
    },
  };
}
