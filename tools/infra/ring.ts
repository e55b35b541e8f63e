/**
 * A local Cassandra ring without Docker: node i (1-based) on 127.0.0.i (Linux routes all of
 * 127/8 to loopback), the same CQL and storage ports on every address, its own JMX port
 * (base + 100·(i−1), JMX binds 127.0.0.1), its own folders under REGRID_HOME/cassandra/<v>/ring/,
 * one pre-computed token per node, evenly spaced over the Murmur3 range, node 1 as the seed,
 * `auto_bootstrap: false` (an empty ring has nothing to stream).
 *
 * Nodes start one at a time; the next starts only once `nodetool status` on the first shows every
 * node so far Up/Normal (token allocation and gossip do not like concurrent joins). Heaps default
 * to 512M each: three of them share 2 cores and the service.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { waitForSchemaAgreement } from '../../src/store/migrations.js';
import { nodeFolders, nodeLayout, type LayoutConfig, type NodeLayout } from './cassandra-files.js';
import { probeCql } from './cql-probe.js';
import { launch, liveNodePid, waitUntilReady } from './embedded-cassandra.js';
import { runNodetoolAt } from './nodetool.js';
import { isAlive, sleep } from './process-utils.js';

export const RING_DC = 'datacenter1';

export interface RingNode {
  /** 1-based. */
  readonly index: number;
  readonly layout: NodeLayout;
}

export type RingConfig = LayoutConfig & Pick<Config, 'CASSANDRA_HEAP'>;

/** Token of node i of n: −2^63 + (i−1)·2^64/n. */
export function ringToken(index: number, nodes: number): bigint {
  return -(1n << 63n) + (BigInt(index - 1) * (1n << 64n)) / BigInt(nodes);
}

/** The layouts of an n-node ring (folders, addresses, ports, tokens). */
export function ringNodes(config: LayoutConfig, nodes: number): RingNode[] {
  const base = nodeLayout(config);
  const ringDir = join(base.versionDir, 'ring');
  return Array.from({ length: nodes }, (_, k) => {
    const index = k + 1;
    const nodeDir = join(ringDir, `node${index}`);
    const layout: NodeLayout = {
      ...base,
      ...nodeFolders(nodeDir),
      stateFile: join(ringDir, `node${index}.json`),
      lockFile: join(ringDir, 'provision.lock'),
      jmxPort: base.jmxPort + 100 * k,
      address: `127.0.0.${index}`,
      seeds: `127.0.0.1:${base.storagePort}`,
      initialToken: ringToken(index, nodes).toString(),
    };
    return { index, layout };
  });
}

/** How many nodes the ring under REGRID_HOME was made with (0: none). */
export function ringSize(config: LayoutConfig): number {
  const file = join(nodeLayout(config).versionDir, 'ring', 'size');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
}

export type NodeStateName = 'UN' | 'DN' | 'UJ' | 'UL' | 'down' | 'unknown';

/** Address → state as node `via` sees the ring (`nodetool status`). */
export async function gossipView(via: RingNode): Promise<Map<string, NodeStateName>> {
  const out = await runNodetoolAt(via.layout, ['status']);
  const view = new Map<string, NodeStateName>();
  for (const line of out.split('\n')) {
    const m = /^([UD][NJLM])\s+([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)/.exec(line.trim());
    if (m) view.set(m[2]!, m[1] as NodeStateName);
  }
  return view;
}

/** Waits until node `via` sees every node of `expected` as UN. */
async function waitAllUp(via: RingNode, expected: readonly RingNode[], deadlineMs: number) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const view = await gossipView(via).catch(() => new Map<string, NodeStateName>());
    if (expected.every((n) => view.get(n.layout.address) === 'UN')) return;
    if (Date.now() > until) {
      const seen = [...view].map(([a, s]) => `${a} ${s}`).join(', ') || 'nothing';
      throw new Error(`ring did not settle within ${deadlineMs / 1000}s (node 1 sees ${seen})`);
    }
    await sleep(1000);
  }
}

/** Starts one node (with its data) and waits for its CQL port. */
export async function startNode(
  config: RingConfig,
  node: RingNode,
  log: (l: string) => void,
): Promise<number> {
  const running = liveNodePid(node.layout);
  if (running) return running;
  const pid = await launch(node.layout, config, (l) => log(`[node ${node.index}] ${l}`));
  const ep = { host: node.layout.address, port: node.layout.nativePort, localDataCenter: RING_DC };
  await waitUntilReady(node.layout, ep, pid, 480_000, (l) => log(`[node ${node.index}] ${l}`));
  return pid;
}

/** Brings up an n-node ring, one node at a time; reuses nodes that already run. */
export async function startRing(
  config: RingConfig,
  nodes: number,
  log: (l: string) => void,
): Promise<RingNode[]> {
  const ring = ringNodes(config, nodes);
  const made = ringSize(config);
  if (made !== 0 && made !== nodes) {
    throw new Error(`a ${made}-node ring exists under REGRID_HOME; stop it and remove it first`);
  }
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(join(nodeLayout(config).versionDir, 'ring'), { recursive: true });
  writeFileSync(join(nodeLayout(config).versionDir, 'ring', 'size'), `${nodes}\n`);
  const t0 = Date.now();
  for (const node of ring) {
    await startNode(config, node, log);
    await waitAllUp(ring[0]!, ring.slice(0, node.index), 180_000);
    log(`node ${node.index}/${nodes} up (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  }
  await waitSchemaAgreed(ring[0]!, 180_000);
  return ring;
}

/**
 * Waits until every live node reports one schema version. A node that just joined can take
 * longer than a migration's own 30 s agreement bound to catch up on a loaded machine (CI saw the
 * first CREATE KEYSPACE time out on a fresh ring), so the ring is handed over agreed.
 */
async function waitSchemaAgreed(via: RingNode, timeoutMs: number): Promise<void> {
  const client = new cassandra.Client({
    contactPoints: [`${via.layout.address}:${via.layout.nativePort}`],
    localDataCenter: RING_DC,
  });
  try {
    await client.connect();
    await waitForSchemaAgreement(client, timeoutMs);
  } finally {
    await client.shutdown();
  }
}

export interface RingNodeStatus {
  readonly address: string;
  readonly pid: number | null;
  readonly cql_port: number;
  readonly jmx_port: number;
  readonly state: NodeStateName;
}

/** Every node: address, pid, ports, and its state as the first live node sees it. */
export async function ringStatus(config: LayoutConfig): Promise<RingNodeStatus[]> {
  const ring = ringNodes(config, ringSize(config));
  const live = ring.filter((n) => liveNodePid(n.layout) !== undefined);
  const view = live[0] ? await gossipView(live[0]).catch(() => undefined) : undefined;
  return Promise.all(
    ring.map(async (n) => {
      const pid = liveNodePid(n.layout) ?? null;
      const answers =
        pid !== null &&
        (await probeCql({
          host: n.layout.address,
          port: n.layout.nativePort,
          localDataCenter: RING_DC,
        })) !== undefined;
      const state: NodeStateName =
        pid === null ? 'down' : (view?.get(n.layout.address) ?? (answers ? 'UN' : 'unknown'));
      return {
        address: n.layout.address,
        pid,
        cql_port: n.layout.nativePort,
        jmx_port: n.layout.jmxPort,
        state,
      };
    }),
  );
}

/** Hard kill (SIGKILL, like a crash) of node `index`; its data stays for a restart. */
export function killNode(config: LayoutConfig, index: number): number | undefined {
  const node = ringNodes(config, ringSize(config)).find((n) => n.index === index);
  const pid = node && liveNodePid(node.layout);
  if (pid === undefined) return undefined;
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Stops every node (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopRing(config: LayoutConfig, graceMs = 30_000): Promise<string[]> {
  const out: string[] = [];
  for (const n of ringNodes(config, ringSize(config)).reverse()) {
    const pid = liveNodePid(n.layout);
    if (pid === undefined) continue;
    process.kill(pid, 'SIGTERM');
    const t0 = Date.now();
    while (isAlive(pid) && Date.now() - t0 < graceMs) await sleep(250);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(n.layout.stateFile, { force: true });
    out.push(`node ${n.index} (${n.layout.address}, pid ${pid}) stopped`);
  }
  return out;
}
