/**
 * The fault suite's private stores: a Cassandra node assembled by this project's own tooling
 * (ensureCassandra) under /tmp/regrid-faults on its own ports, and a redis-server of its own.
 * The tests stop, pause and kill them; the shared node on 9042 and Redis on 6379 are never
 * touched, because every signal goes to a PID that is checked against the private node's folder
 * (or to the redis-server the global setup spawned) first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { stopCassandra } from '../../../tools/infra/cassandra-control.js';
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
  // The commit log is the development default (a test that needs `periodic` asks for it).
  CASSANDRA_CONTACT_POINTS: '', // empty: provision the local node (never an external cluster)
} as const;

/**
 * Config of one service instance in a fault test: the private node and Redis, test mode, and
 * limits that the workloads would otherwise hit (rate limit) or wait on (in-flight key lease).
 * Built from these values only, not from process.env.
 */
export function faultsConfig(env: Record<string, string> = {}): Config {
  return loadConfig(
    {},
    {
      NODE_ENV: 'test',
      ...NODE_ENV_VARS,
      CASSANDRA_KEYSPACE: FAULTS_KEYSPACE,
      REDIS_URL: `redis://127.0.0.1:${FAULTS_REDIS_PORT}`,
      MOVE_RATE_LIMIT: '1000000',
      // A move whose first attempt died with the store holds its key this long (409 meanwhile).
      IDEMPOTENCY_LEASE_MS: '1500',
      ...env,
    },
  );
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

/**
 * Starts the private node again on its data (commit log replay included); its new PID. `env`
 * changes how it runs (e.g. `CASSANDRA_COMMITLOG_SYNC`): cassandra.yaml is written at each start.
 */
export async function restartNode(
  log: (line: string) => void,
  env: Record<string, string> = {},
): Promise<number> {
  const target = await ensureCassandra(faultsConfig(env), { log });
  if (target.origin !== 'started' || target.pid === undefined) {
    throw new Error(`expected to start the private node, got '${target.origin}'`);
  }
  return target.pid;
}

/** The commit log mode the running private node was started with (its cassandra.yaml), e.g. `periodic+lz4`. */
export function runningCommitlogSync(): string | undefined {
  const config = faultsConfig();
  if (privateNodePid(config) === undefined) return undefined;
  const yaml = readFileSync(join(nodeLayout(config).confDir, 'cassandra.yaml'), 'utf8');
  const lz4 = /^ {2}- class_name: LZ4Compressor$/m.test(yaml) ? '+lz4' : '';
  return `${/^commitlog_sync: (\w+)$/m.exec(yaml)?.[1]}${lz4}`;
}

/**
 * Makes the private node run with `env`'s commit log mode: kept if it already does, else
 * stopped (SIGTERM to the PID of its own pidfile, a clean drain) and started with it.
 */
export async function nodeWithCommitlog(
  log: (line: string) => void,
  env: Record<string, string> = {},
): Promise<void> {
  const layout = nodeLayout(faultsConfig(env));
  const want = `${layout.commitlogSync}${layout.commitlogCompression === 'lz4' ? '+lz4' : ''}`;
  if (runningCommitlogSync() === want) return;
  const res = await stopCassandra(faultsConfig(), 30_000);
  log(`cassandra: ${res.detail}`);
  await restartNode(log, env);
}
