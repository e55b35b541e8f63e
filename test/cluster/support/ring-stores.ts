/**
 * The cluster suite's private stores: a 3-node Cassandra ring started by this project's own
 * tooling (tools/infra/ring.ts) under /tmp/regrid-cluster on 127.0.0.1–3 with ports of its
 * own (CQL 19342, storage 17400, JMX 17500/17600/17700), and a redis-server on 16479. Neither
 * clashes with the shared node (9042/7000/7199) or the fault suite (19142/17100/17299, 16379).
 *
 * Every signal goes to a PID read from a node's pidfile and checked against that node's folder
 * first, so a test can never stop anything but the ring's own JVMs.
 */
import { loadConfig, type Config } from '../../../src/config/config.js';
import { liveNodePid } from '../../../tools/infra/embedded-cassandra.js';
import { commandLineOf, isAlive, sleep } from '../../../tools/infra/process-utils.js';
import {
  gossipView,
  ringNodes,
  startNode,
  type NodeStateName,
  type RingNode,
} from '../../../tools/infra/ring.js';

export const CLUSTER_KEYSPACE = 'regrid_cluster';
export const CLUSTER_REDIS_PORT = 16479;
export const RING_SIZE = 3;

/** The ring's facts: fixed, so a developer's environment can never point the suite elsewhere. */
export const RING_ENV = {
  REGRID_HOME: '/tmp/regrid-cluster',
  CASSANDRA_PORT: '19342',
  CASSANDRA_STORAGE_PORT: '17400',
  CASSANDRA_JMX_PORT: '17500',
  CASSANDRA_HEAP: '512M',
  CASSANDRA_NODES: String(RING_SIZE),
  CASSANDRA_CONTACT_POINTS: '127.0.0.1,127.0.0.2,127.0.0.3',
  CASSANDRA_LOCAL_DC: 'datacenter1',
  CASSANDRA_REPLICATION: 'NetworkTopologyStrategy:datacenter1=3',
} as const;

/** Config of one service instance on the ring (built from these values only, not process.env). */
export function clusterConfig(env: Record<string, string> = {}): Config {
  return loadConfig(
    {},
    {
      NODE_ENV: 'test',
      ...RING_ENV,
      CASSANDRA_KEYSPACE: CLUSTER_KEYSPACE,
      REDIS_URL: `redis://127.0.0.1:${CLUSTER_REDIS_PORT}`,
      MOVE_RATE_LIMIT: '1000000',
      IDEMPOTENCY_LEASE_MS: '1500',
      ...env,
    },
  );
}

export const ring = (): RingNode[] => ringNodes(clusterConfig(), RING_SIZE);
export const node = (index: number): RingNode => ring()[index - 1]!;

/** Node `index`'s PID, only if that process really is the JVM running from its folder. */
export function ringNodePid(index: number): number | undefined {
  const { layout } = node(index);
  const pid = liveNodePid(layout);
  return pid !== undefined && commandLineOf(pid).includes(layout.nodeDir) ? pid : undefined;
}

export function signalRingNode(index: number, signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): number {
  const pid = ringNodePid(index);
  if (pid === undefined) throw new Error(`ring node ${index} is not running (${signal})`);
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

/** Waits until node `via` sees each of `indexes` in `state` (bounded); returns the wait in ms. */
export async function waitSeenAs(
  via: number,
  indexes: readonly number[],
  state: NodeStateName,
  timeoutMs = 90_000,
): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const view = await gossipView(node(via)).catch(() => new Map<string, NodeStateName>());
    if (indexes.every((i) => view.get(node(i).layout.address) === state)) return Date.now() - t0;
    if (Date.now() - t0 > timeoutMs) {
      throw new Error(
        `node ${via} did not see nodes ${indexes.join(',')} ${state} within ${timeoutMs} ms: ` +
          ([...view].map(([a, s]) => `${a} ${s}`).join(', ') || 'no answer'),
      );
    }
    await sleep(500);
  }
}

/** Restarts node `index` on its data; resolves once it answers CQL. */
export async function restartRingNode(index: number): Promise<number> {
  return startNode(clusterConfig(), node(index), (l) => console.log(`[ring] ${l}`));
}

/**
 * Puts the ring back to full strength: resumes paused nodes, restarts dead ones, and waits until
 * node 1 sees all three Up/Normal. Every test file starts with this, so the order of the files
 * does not matter and one failed file cannot leave the next one on a broken ring.
 */
export async function ensureFullRing(): Promise<void> {
  for (let i = 1; i <= RING_SIZE; i++) {
    if (ringNodePid(i) !== undefined) signalRingNode(i, 'SIGCONT');
  }
  for (let i = 1; i <= RING_SIZE; i++) {
    if (ringNodePid(i) === undefined) await restartRingNode(i);
  }
  await waitSeenAs(
    1,
    ring().map((n) => n.index),
    'UN',
  );
}
