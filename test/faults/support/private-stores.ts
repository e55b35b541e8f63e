/**
 * The fault suite's private stores: a Cassandra node assembled by this project's own tooling
 * (ensureCassandra) under /tmp/regrid-faults on its own ports, and a redis-server of its own.
 * The tests stop, pause and kill them; the shared node on 9042 and Redis on 6379 are never
 * touched, because every signal goes to a PID that is checked against the private node's folder
 * (or to the redis-server the global setup spawned) first.
 */
import { loadConfig, type Config } from '../../../src/config.js';
import { nodeLayout } from '../../../tools/infra/cassandra-files.js';
import { ensureCassandra, liveNodePid } from '../../../tools/infra/embedded-cassandra.js';
import { commandLineOf, isAlive, sleep } from '../../../tools/infra/process-utils.js';

export const FAULTS_KEYSPACE = 'regrid_faults';
export const FAULTS_REDIS_PORT = 16379;

/** The node's facts: fixed, so a developer's environment can never point the suite elsewhere. */
const NODE_ENV_VARS = {
  REGRID_HOME: '/tmp/regrid-faults',
  CASSANDRA_PORT: '19142',
  CASSANDRA_STORAGE_PORT: '17100',
  CASSANDRA_JMX_PORT: '17299',
  CASSANDRA_HEAP: '512M',
  // A killed single node must not lose acknowledged moves: sync before acknowledging.
  CASSANDRA_COMMITLOG_SYNC: 'group',
  CASSANDRA_CONTACT_POINTS: '', // empty: provision the local node (never an external cluster)
} as const;

/**
 * Config of one service instance in a fault test: the private node and Redis, test mode, and
 * limits that the workloads would otherwise hit (rate limit) or wait on (in-flight key lease).
 * Built from these values only, not from process.env.
 */
export function faultsConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    ...NODE_ENV_VARS,
    CASSANDRA_KEYSPACE: FAULTS_KEYSPACE,
    REDIS_URL: `redis://127.0.0.1:${FAULTS_REDIS_PORT}`,
    MOVE_RATE_LIMIT: '1000000',
    // A move whose first attempt died with the store holds its key this long (409 meanwhile).
    IDEMPOTENCY_LEASE_MS: '1500',
    ...env,
  });
}

/** The private node's PID, only if that process really is the JVM running from its folder. */
export function privateNodePid(config: Config = faultsConfig()): number | undefined {
  const layout = nodeLayout(config);
  const pid = liveNodePid(layout);
  return pid !== undefined && commandLineOf(pid).includes(layout.nodeDir) ? pid : undefined;
}

export function signalNode(signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): number {
  const pid = privateNodePid();
  if (pid === undefined) throw new Error(`no private Cassandra node is running to ${signal}`);
  process.kill(pid, signal);
  return pid;
}

/** Waits until the process is gone (a killed JVM is reaped by whoever spawned it). */
export async function waitGone(pid: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && commandLineOf(pid) !== '') {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Signals the redis-server the global setup spawned (its PID comes from the setup). */
export function signalRedis(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  if (!commandLineOf(pid).includes(`:${FAULTS_REDIS_PORT}`)) {
    throw new Error(`pid ${pid} is not the private redis-server on ${FAULTS_REDIS_PORT}`);
  }
  process.kill(pid, signal);
}

/** Starts the private node again on its data (commit log replay included); its new PID. */
export async function restartNode(log: (line: string) => void): Promise<number> {
  const target = await ensureCassandra(faultsConfig(), { log });
  if (target.origin !== 'started' || target.pid === undefined) {
    throw new Error(`expected to start the private node, got '${target.origin}'`);
  }
  return target.pid;
}
