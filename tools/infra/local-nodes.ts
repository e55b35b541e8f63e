/**
 * The single local node and the local ring under one REGRID_HOME, seen together: ring node 1
 * listens where the single node does (127.0.0.1, CASSANDRA_PORT; its JMX port is the single
 * node's too), so at most one of them can run, and a command that looked at only one of them
 * hid the other (`cassandra status` / `down` saw only the ring once its folder existed).
 */
import { LOCAL_DC, nodeLayout, type LayoutConfig, type NodeLayout } from './cassandra-files.js';
import { probeCql } from './cql-probe.js';
import { liveNodePid } from './embedded-cassandra.js';
import { tcpOpen } from './process-utils.js';
import { ringNodes, ringSize, ringStatus, type NodeStateName } from './ring.js';

export interface LocalNodeStatus {
  /** `single`, or `ring-<i>`. */
  readonly node: string;
  readonly address: string;
  readonly pid: number | null;
  readonly cql_port: number;
  readonly jmx_port: number;
  /**
   * Ring nodes: gossip state as the first live node sees it, `down` without a process. The
   * single node: `UN` (answers CQL), `starting` (its JVM runs, CQL not yet), `down`, or `foreign`
   * (not started under this REGRID_HOME, yet something answers CQL on its address and port).
   */
  readonly state: NodeStateName | 'starting' | 'foreign';
  readonly note?: string;
}

export interface LocalStatus {
  readonly home: string;
  readonly ring_size: number;
  readonly nodes: LocalNodeStatus[];
}

export async function localStatus(config: LayoutConfig): Promise<LocalStatus> {
  const layout = nodeLayout(config);
  const size = ringSize(config);
  const ringFirstPid = size > 0 ? liveNodePid(ringNodes(config, size)[0]!.layout) : undefined;
  const pid = liveNodePid(layout) ?? null;
  const answers =
    (await probeCql({
      host: layout.address,
      port: layout.nativePort,
      localDataCenter: LOCAL_DC,
    })) !== undefined;
  const single: LocalNodeStatus = {
    node: 'single',
    address: layout.address,
    pid,
    cql_port: layout.nativePort,
    jmx_port: layout.jmxPort,
    state: singleState(pid !== null, answers, ringFirstPid !== undefined),
    ...(pid === null && ringFirstPid !== undefined
      ? { note: `${layout.address}:${layout.nativePort} is ring node 1 (pid ${ringFirstPid})` }
      : {}),
  };
  const ring = size > 0 ? await ringStatus(config) : [];
  return {
    home: layout.home,
    ring_size: size,
    nodes: [single, ...ring.map((n, k) => ({ node: `ring-${k + 1}`, ...n }))],
  };
}

/** Pure: the single node's state from its pidfile, the CQL probe, and ring node 1. */
export function singleState(
  ours: boolean,
  answers: boolean,
  ringNodeOneRuns: boolean,
): LocalNodeStatus['state'] {
  if (ours) return answers ? 'UN' : 'starting';
  return answers && !ringNodeOneRuns ? 'foreign' : 'down';
}

/**
 * Pure: `cassandra status`'s exit code. 0: the single node answers, or every ring node is UN;
 * 1: the ring is partly up; 3: nothing answers.
 */
export function statusExit(nodes: readonly LocalNodeStatus[]): 0 | 1 | 3 {
  const single = nodes.find((n) => n.node === 'single');
  const ring = nodes.filter((n) => n.node !== 'single');
  if (single && (single.state === 'UN' || single.state === 'foreign')) return 0;
  if (ring.length > 0 && ring.every((n) => n.state === 'UN')) return 0;
  return ring.some((n) => n.state !== 'down') ? 1 : 3;
}

export interface PortConflict {
  readonly address: string;
  readonly port: number;
  readonly setting: 'CASSANDRA_PORT' | 'CASSANDRA_STORAGE_PORT' | 'CASSANDRA_JMX_PORT';
}

/** The ports a node listens on (JMX binds 127.0.0.1 whatever the node's address). */
export function nodePorts(l: NodeLayout): PortConflict[] {
  return [
    { address: l.address, port: l.nativePort, setting: 'CASSANDRA_PORT' },
    { address: l.address, port: l.storagePort, setting: 'CASSANDRA_STORAGE_PORT' },
    { address: '127.0.0.1', port: l.jmxPort, setting: 'CASSANDRA_JMX_PORT' },
  ];
}

/** The ports of the ring's not-running nodes that something already holds. */
export async function ringPortConflicts(
  config: LayoutConfig,
  nodes: number,
): Promise<PortConflict[]> {
  const idle = ringNodes(config, nodes).filter((n) => liveNodePid(n.layout) === undefined);
  const wanted = idle.flatMap((n) => nodePorts(n.layout));
  const held = await Promise.all(wanted.map((p) => tcpOpen(p.address, p.port, 300)));
  return wanted.filter((_, i) => held[i]);
}

/** Pure: what to tell the user when a ring cannot start because of `conflicts`. */
export function conflictMessage(
  conflicts: readonly PortConflict[],
  singlePid: number | undefined,
  nodes: number,
): string {
  const where = conflicts.map((c) => `${c.address}:${c.port} (${c.setting})`).join(', ');
  if (singlePid !== undefined) {
    return (
      `the single local node (pid ${singlePid}, started under this REGRID_HOME) holds ${where}, ` +
      `which ring node 1 needs: stop it with \`npm run cassandra:down -- --node single\`, or ` +
      `run \`npm run cassandra:up -- --nodes ${nodes} --stop-single\`, or give the ring other ` +
      `ports (CASSANDRA_PORT, CASSANDRA_STORAGE_PORT, CASSANDRA_JMX_PORT) and its own REGRID_HOME`
    );
  }
  return (
    `${where} already in use by a process not started under this REGRID_HOME: stop it, or give ` +
    `the ring other ports (CASSANDRA_PORT, CASSANDRA_STORAGE_PORT, CASSANDRA_JMX_PORT)`
  );
}
