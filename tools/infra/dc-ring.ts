/**
 * A local multi-DC Cassandra ring (`npm run cassandra:up -- --dcs 2 --nodes-per-dc N`): node j
 * of DC k in its own network namespace at 10.O.k.j (tools/infra/netns.ts has the address plan
 * and the faults), GossipingPropertyFileSnitch with dc<k>/rack1, the first node of every DC a
 * seed, one token per node (the one-DC ring's spacing per DC, offset by k−1 so no two nodes
 * share one), small heaps. Same ports on every node: each namespace has its own.
 *
 * Folders: REGRID_HOME/cassandra/<v>/dcring/{shape.json, dc<k>n<j>/, dc<k>n<j>.json (pidfile)}.
 * Nodes start one at a time (as tools/infra/ring.ts does), each once the first node sees every
 * earlier one Up/Normal.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFolders, nodeLayout, type LayoutConfig, type NodeLayout } from './cassandra-files.js';
import { probeCql } from './cql-probe.js';
import { launch, liveNodePid, waitUntilReady } from './embedded-cassandra.js';
import { ensureNet, nodeAddress, nodeNs, type NetPlan } from './netns.js';
import { isAlive, sleep } from './process-utils.js';
import { gossipView, ringToken, type NodeStateName, type RingConfig } from './ring.js';

export interface DcNode {
  /** 1-based DC number (DC name `dc<dc>`) and node number within it. */
  readonly dc: number;
  readonly index: number;
  /** `dc<k>n<j>`, as the CLI names it. */
  readonly name: string;
  readonly layout: NodeLayout;
}

export const dcName = (dc: number) => `dc${dc}`;

const ringDir = (config: LayoutConfig) => join(nodeLayout(config).versionDir, 'dcring');

/** The shape of the DC ring under REGRID_HOME (undefined: none made). */
export function dcRingPlan(config: LayoutConfig): NetPlan | undefined {
  const file = join(ringDir(config), 'shape.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as NetPlan) : undefined;
}

export function dcRingNodes(config: LayoutConfig, plan: NetPlan): DcNode[] {
  const base = nodeLayout(config);
  const dir = ringDir(config);
  const seeds = Array.from(
    { length: plan.dcs },
    (_, k) => `${nodeAddress(plan, k + 1, 1)}:${base.storagePort}`,
  ).join(',');
  const out: DcNode[] = [];
  for (let dc = 1; dc <= plan.dcs; dc++) {
    for (let index = 1; index <= plan.nodesPerDc; index++) {
      const name = `dc${dc}n${index}`;
      const layout: NodeLayout = {
        ...base,
        ...nodeFolders(join(dir, name)),
        stateFile: join(dir, `${name}.json`),
        lockFile: join(dir, 'provision.lock'),
        address: nodeAddress(plan, dc, index),
        seeds,
        initialToken: (ringToken(index, plan.nodesPerDc) + BigInt(dc - 1)).toString(),
        dc: { name: dcName(dc), rack: 'rack1' },
        netns: nodeNs(plan, dc, index),
        ...(index > 1 ? { ringDelayMs: 5000 } : {}), // not a seed: see NodeLayout.ringDelayMs
      };
      out.push({ dc, index, name, layout });
    }
  }
  return out;
}

/** NetworkTopologyStrategy with every DC at its node count (RF ≤ 3). */
export function dcReplication(plan: NetPlan): Record<string, string | number> {
  const rf = Math.min(3, plan.nodesPerDc);
  const out: Record<string, string | number> = { class: 'NetworkTopologyStrategy' };
  for (let dc = 1; dc <= plan.dcs; dc++) out[dcName(dc)] = rf;
  return out;
}

const endpoint = (n: DcNode) => ({
  host: n.layout.address,
  port: n.layout.nativePort,
  localDataCenter: dcName(n.dc),
});

async function waitAllUp(via: DcNode, expected: readonly DcNode[], deadlineMs: number) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const view = await gossipView(via).catch(() => new Map<string, NodeStateName>());
    if (expected.every((n) => view.get(n.layout.address) === 'UN')) return;
    if (Date.now() > until) {
      const seen = [...view].map(([a, s]) => `${a} ${s}`).join(', ') || 'nothing';
      throw new Error(`DC ring did not settle within ${deadlineMs / 1000}s (${via.name} sees ${seen})`); // prettier-ignore
    }
    await sleep(1000);
  }
}

/** Starts one node (its namespace must exist) and waits for its CQL port; its PID. */
export async function startDcNode(config: RingConfig, node: DcNode, log: (l: string) => void) {
  const running = liveNodePid(node.layout);
  if (running) return running;
  const say = (l: string) => log(`[${node.name}] ${l}`);
  const pid = await launch(node.layout, config, say);
  await waitUntilReady(node.layout, endpoint(node), pid, 480_000, say);
  return pid;
}

/** Brings the network and every node up (reusing what runs); the nodes. */
export async function startDcRing(
  config: RingConfig,
  plan: NetPlan,
  log: (l: string) => void,
): Promise<DcNode[]> {
  const made = dcRingPlan(config);
  if (made && (made.dcs !== plan.dcs || made.nodesPerDc !== plan.nodesPerDc)) {
    throw new Error(
      `a ${made.dcs}-DC ring with ${made.nodesPerDc} node(s) per DC exists under REGRID_HOME: ` +
        `stop it and remove ${ringDir(config)} first (its nodes keep the tokens they started with)`,
    );
  }
  mkdirSync(ringDir(config), { recursive: true });
  writeFileSync(join(ringDir(config), 'shape.json'), JSON.stringify(plan) + '\n');
  const t0 = Date.now();
  ensureNet(plan);
  log(`network up (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  const nodes = dcRingNodes(config, plan);
  for (const [k, node] of nodes.entries()) {
    await startDcNode(config, node, log);
    await waitAllUp(nodes[0]!, nodes.slice(0, k + 1), 180_000);
    log(`${node.name} up (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  }
  return nodes;
}

export interface DcNodeStatus {
  readonly node: string;
  readonly dc: string;
  readonly address: string;
  readonly netns: string;
  readonly pid: number | null;
  /** Gossip state as the first live node sees it; `down` without a process. */
  readonly state: NodeStateName;
}

/** Every node's state as `via` (default: the first live node) sees it in gossip. */
export async function dcRingStatus(
  config: LayoutConfig,
  plan: NetPlan,
  via?: DcNode,
): Promise<DcNodeStatus[]> {
  const nodes = dcRingNodes(config, plan);
  const seer = via ?? nodes.find((n) => liveNodePid(n.layout) !== undefined);
  const view = seer ? await gossipView(seer).catch(() => undefined) : undefined;
  return Promise.all(
    nodes.map(async (n) => {
      const pid = liveNodePid(n.layout) ?? null;
      const answers = pid !== null && (await probeCql(endpoint(n), 2000)) !== undefined;
      const state: NodeStateName =
        pid === null ? 'down' : (view?.get(n.layout.address) ?? (answers ? 'UN' : 'unknown'));
      const { address, netns = '' } = n.layout;
      return { node: n.name, dc: dcName(n.dc), address, netns, pid, state };
    }),
  );
}

/** Stops every node (SIGTERM, SIGKILL after `graceMs`) by the PIDs in their pidfiles. */
export async function stopDcRing(config: LayoutConfig, graceMs = 30_000): Promise<string[]> {
  const plan = dcRingPlan(config);
  if (!plan) return [];
  const out: string[] = [];
  for (const n of dcRingNodes(config, plan).reverse()) {
    const pid = liveNodePid(n.layout);
    if (pid === undefined) continue;
    process.kill(pid, 'SIGTERM');
    const t0 = Date.now();
    while (isAlive(pid) && Date.now() - t0 < graceMs) await sleep(250);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(n.layout.stateFile, { force: true });
    out.push(`${n.name} (${n.layout.address}, pid ${pid}) stopped`);
  }
  return out;
}
