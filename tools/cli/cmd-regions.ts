/**
 * The multi-DC ring's part of `regrid cassandra` (tools/infra/dc-ring.ts, tools/infra/netns.ts):
 *   up --dcs 2 [--nodes-per-dc N]   network namespaces, then the nodes, one at a time
 *   status / down                   (also shown and stopped by the one-DC status and down)
 *   partition [dc1|dc2]             the WAN link down: the two DCs cut from each other
 *   isolate dc<k>n<j>               one node's link down
 *   heal                            every link up
 * The command-line spec in src/cli/command-specs.ts knows none of these options, so
 * tools/cli/dev-commands.ts hands `cassandra` invocations that use them to this module first.
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../../src/config/config.js';
import {
  dcName,
  dcReplication,
  dcRingNodes,
  dcRingPlan,
  dcRingStatus,
  startDcRing,
  stopDcRing,
} from '../infra/dc-ring.js';
import {
  heal,
  isolate,
  linkStates,
  partition,
  regionAddress,
  regionNs,
  removeNet,
  type NetPlan,
} from '../infra/netns.js';
import { liveNodePid } from '../infra/embedded-cassandra.js';
import { EXIT, UsageError } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/regrid-commands.js';

const FAULTS = new Set(['partition', 'isolate', 'heal']);

/** Whether `argv` (after `cassandra`) is for this module. */
export function isRegionsInvocation(argv: readonly string[]): boolean {
  const sub = argv.find((a) => !a.startsWith('-'));
  return FAULTS.has(sub ?? '') || argv.some((a) => /^--(dcs|nodes-per-dc)(=|$)/.test(a));
}

export function netOctet(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env['REGRID_DC_NET'] ?? 77);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new UsageError('REGRID_DC_NET takes 0..255'); // prettier-ignore
  return n;
}

export async function runRegions(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { dcs: { type: 'string' }, 'nodes-per-dc': { type: 'string' } },
    allowPositionals: true,
  });
  const [sub, arg] = positionals;
  // Small heaps: two to six nodes share this machine (CASSANDRA_HEAP is a constant, set in code).
  const config = loadConfig(process.env, { CASSANDRA_HEAP: '512M' });
  if (sub === 'up') {
    const dcs = Number(values.dcs ?? 2);
    const perDc = Number(values['nodes-per-dc'] ?? 1);
    if (dcs !== 1 && dcs !== 2) throw new UsageError('--dcs takes 1 or 2');
    if (!Number.isInteger(perDc) || perDc < 1 || perDc > 3) throw new UsageError('--nodes-per-dc takes 1..3'); // prettier-ignore
    return up(config, { octet: netOctet(), dcs, nodesPerDc: perDc }, io);
  }
  const plan = dcRingPlan(config);
  if (!plan) {
    io.err(`no DC ring under REGRID_HOME: npm run cassandra:up -- --dcs 2 --nodes-per-dc 1`);
    return EXIT.usage;
  }
  const t0 = process.hrtime.bigint();
  const took = () => `${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`;
  switch (sub) {
    case 'partition':
      if (arg !== undefined && arg !== 'dc1' && arg !== 'dc2') throw new UsageError('partition [dc1|dc2]'); // prettier-ignore
      partition(plan);
      io.out(`WAN link down: dc1 and dc2 cut from each other (${took()})`);
      return EXIT.ok;
    case 'isolate': {
      const m = /^dc([12])n([1-9])$/.exec(arg ?? '');
      if (!m || Number(m[1]) > plan.dcs || Number(m[2]) > plan.nodesPerDc) {
        throw new UsageError(`isolate dc<k>n<j> (this ring: dc1..dc${plan.dcs}, n1..n${plan.nodesPerDc})`); // prettier-ignore
      }
      isolate(plan, Number(m[1]), Number(m[2]));
      io.out(`${arg}'s link down (${took()})`);
      return EXIT.ok;
    }
    case 'heal':
      heal(plan);
      io.out(`every link up (${took()})`);
      return EXIT.ok;
    default:
      throw new UsageError(`no '${sub ?? ''}' for the DC ring: up, partition, isolate, heal`);
  }
}

async function up(config: Config, plan: NetPlan, io: Io): Promise<number> {
  const t0 = Date.now();
  const nodes = await startDcRing(config, plan, (l) => io.err(`[dc ring] ${l}`));
  io.out(
    `${plan.dcs}-DC ring up in ${((Date.now() - t0) / 1000).toFixed(1)}s: ` +
      nodes.map((n) => `${n.name} ${n.layout.address}:${n.layout.nativePort}`).join(', ') +
      `; replication ${JSON.stringify(dcReplication(plan))}`,
  );
  for (let dc = 1; dc <= plan.dcs; dc++) {
    const points = nodes.filter((n) => n.dc === dc).map((n) => n.layout.address);
    io.out(
      `region ${dcName(dc)}: ip netns exec ${regionNs(plan, dc)} env ` +
        `CASSANDRA_CONTACT_POINTS=${points.join(',')} CASSANDRA_LOCAL_DC=${dcName(dc)} … ` +
        `(its services listen on ${regionAddress(plan, dc)})`,
    );
  }
  return EXIT.ok;
}

/** The DC ring for `cassandra status --json` (undefined without one). */
export async function dcStatus(config: Config) {
  const plan = dcRingPlan(config);
  if (!plan) return undefined;
  return { plan, links: linkStates(plan), nodes: await dcRingStatus(config, plan) };
}

/** Lines for `cassandra status` (empty without a DC ring). */
export async function dcStatusLines(config: Config): Promise<string[]> {
  const status = await dcStatus(config);
  if (!status) return [];
  const { plan, links } = status;
  const lines = [`dc ring: ${plan.dcs} DC(s) × ${plan.nodesPerDc}, WAN ${links.wan}`];
  for (const n of status.nodes) {
    lines.push(
      `${n.node.padEnd(7)} ${n.dc} ${`${n.address}:${config.CASSANDRA_PORT}`.padEnd(16)} ` +
        `${n.state.padEnd(8)} pid ${String(n.pid ?? '-').padEnd(8)} netns ${n.netns} ` +
        `link ${links.nodes[n.netns] ?? '?'}`,
    );
  }
  return lines;
}

/** For `cassandra down`: stops the nodes by PID, then removes the namespaces they ran in. */
export async function dcDown(config: Config): Promise<string[]> {
  const plan = dcRingPlan(config);
  if (!plan) return [];
  const lines = await stopDcRing(config);
  if (dcRingNodes(config, plan).some((n) => liveNodePid(n.layout) !== undefined)) {
    return [...lines, 'a DC ring node still runs: its network namespaces stay'];
  }
  const removed = removeNet(plan);
  return [...lines, `network namespaces removed: ${removed.join(', ') || 'none'}`];
}
