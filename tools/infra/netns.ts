/**
 * The network of the local multi-DC ring (tools/infra/dc-ring.ts): every Cassandra node in its
 * own network namespace, every DC behind a router namespace of its own, the two routers joined
 * by one veth pair (the WAN), and the root namespace wired to each router by an uplink so the
 * test runner and the CLI reach every node. Faults are links taken down (`ip link set … down`):
 * `tc netem` and iptables do not work on this machine, `ip netns` does (root only).
 *
 * Address plan (octet O, 77 unless REGRID_DC_NET says otherwise; nothing in 127.0.0.0/8):
 *   10.O.k.j/24     node j of DC k, namespace rgO-dckn<j>, interface eth0, default via 10.O.k.254
 *   10.O.k.254/24   DC k's router (namespace rgO-dck, bridge br0): the region's client side;
 *                   a region's regrid processes run there (`ip netns exec rgO-dck …`)
 *   10.O.0.k/30     the WAN end in router k (interface wan); DC1 ↔ DC2 traffic only goes there
 *   10.O.10k.1/30   the root namespace's uplink rgOuk to router k (10.O.10k.2 on its side);
 *                   root routes 10.O.k.0/24 through it. Root does not forward (ip_forward 0 in
 *                   root; routers have no route through root), so the uplinks never join the DCs.
 *
 * partition: the WAN down (each DC, with its clients, still whole); isolate: one node's port on
 * its router down (unreachable from everything, root included); heal: every link up again.
 */
import { execFileSync } from 'node:child_process';

export interface NetPlan {
  /** Second octet of every address (10.O.x.y) and the name prefix rgO. */
  readonly octet: number;
  readonly dcs: number;
  readonly nodesPerDc: number;
}

export const prefixOf = (p: NetPlan) => `rg${p.octet}`;
export const regionNs = (p: NetPlan, dc: number) => `${prefixOf(p)}-dc${dc}`;
export const nodeNs = (p: NetPlan, dc: number, j: number) => `${prefixOf(p)}-dc${dc}n${j}`;
export const nodeAddress = (p: NetPlan, dc: number, j: number) => `10.${p.octet}.${dc}.${j}`;
export const regionAddress = (p: NetPlan, dc: number) => `10.${p.octet}.${dc}.254`;
const uplink = (p: NetPlan, dc: number) => `${prefixOf(p)}u${dc}`;
const rootUplinkAddress = (p: NetPlan, dc: number) => `10.${p.octet}.${100 + dc}.1`;
const routerUplinkAddress = (p: NetPlan, dc: number) => `10.${p.octet}.${100 + dc}.2`;
const wanAddress = (p: NetPlan, dc: number) => `10.${p.octet}.0.${dc}`;
/** Node j's port on its router's bridge. */
const nodePort = (j: number) => `n${j}`;

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function inNs(ns: string, ...argv: string[]): string {
  return execFileSync('ip', ['netns', 'exec', ns, ...argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function namespaces(): Set<string> {
  return new Set(
    ip('netns', 'list')
      .split('\n')
      .map((l) => l.split(' ')[0]!)
      .filter(Boolean),
  );
}

/** Every namespace of the plan, routers first. */
export function planNamespaces(p: NetPlan): string[] {
  const out: string[] = [];
  for (let k = 1; k <= p.dcs; k++) out.push(regionNs(p, k));
  for (let k = 1; k <= p.dcs; k++)
    for (let j = 1; j <= p.nodesPerDc; j++) out.push(nodeNs(p, k, j));
  return out;
}

/** Creates whatever of the plan's network is missing, then heals it (every link up). */
export function ensureNet(p: NetPlan): void {
  if (p.dcs < 1 || p.dcs > 2) throw new Error('the local network joins one or two DCs');
  const have = namespaces();
  for (let k = 1; k <= p.dcs; k++) {
    const r = regionNs(p, k);
    if (!have.has(r)) makeRouter(p, k);
    for (let j = 1; j <= p.nodesPerDc; j++) {
      if (!have.has(nodeNs(p, k, j))) makeNode(p, k, j);
    }
  }
  if (p.dcs === 2 && !ip('-n', regionNs(p, 1), 'link', 'show').includes(' wan@')) makeWan(p);
  heal(p);
}

function makeRouter(p: NetPlan, k: number): void {
  const r = regionNs(p, k);
  ip('netns', 'add', r);
  ip('-n', r, 'link', 'set', 'dev', 'lo', 'up');
  inNs(r, 'sysctl', '-qw', 'net.ipv4.ip_forward=1');
  ip('-n', r, 'link', 'add', 'br0', 'type', 'bridge');
  ip('-n', r, 'addr', 'add', `${regionAddress(p, k)}/24`, 'dev', 'br0');
  ip('-n', r, 'link', 'set', 'dev', 'br0', 'up');
  dropRootUplink(p, k); // a leftover of an earlier run, if any
}

function dropRootUplink(p: NetPlan, k: number): void {
  if (ip('-o', 'link', 'show').includes(` ${uplink(p, k)}@`)) ip('link', 'del', uplink(p, k));
}

function makeNode(p: NetPlan, k: number, j: number): void {
  const ns = nodeNs(p, k, j);
  const r = regionNs(p, k);
  ip('netns', 'add', ns);
  ip('-n', ns, 'link', 'set', 'dev', 'lo', 'up');
  ip('-n', r, 'link', 'add', nodePort(j), 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
  ip('-n', r, 'link', 'set', 'dev', nodePort(j), 'master', 'br0');
  ip('-n', ns, 'addr', 'add', `${nodeAddress(p, k, j)}/24`, 'dev', 'eth0');
  ip('-n', ns, 'link', 'set', 'dev', 'eth0', 'up');
  ip('-n', ns, 'route', 'add', 'default', 'via', regionAddress(p, k));
}

function makeWan(p: NetPlan): void {
  const [r1, r2] = [regionNs(p, 1), regionNs(p, 2)];
  ip('-n', r1, 'link', 'add', 'wan', 'type', 'veth', 'peer', 'name', 'wan', 'netns', r2);
  ip('-n', r1, 'addr', 'add', `${wanAddress(p, 1)}/30`, 'dev', 'wan');
  ip('-n', r2, 'addr', 'add', `${wanAddress(p, 2)}/30`, 'dev', 'wan');
}

function ensureUplink(p: NetPlan, k: number): void {
  const r = regionNs(p, k);
  if (!ip('-n', r, 'link', 'show').includes(' uplink@')) {
    ip('link', 'add', uplink(p, k), 'type', 'veth', 'peer', 'name', 'uplink', 'netns', r);
    ip('addr', 'add', `${rootUplinkAddress(p, k)}/30`, 'dev', uplink(p, k));
    ip('-n', r, 'addr', 'add', `${routerUplinkAddress(p, k)}/30`, 'dev', 'uplink');
  }
  ip('link', 'set', 'dev', uplink(p, k), 'up');
  ip('-n', r, 'link', 'set', 'dev', 'uplink', 'up');
  ip('route', 'replace', `10.${p.octet}.${k}.0/24`, 'via', routerUplinkAddress(p, k));
}

/** Cuts DC1 from DC2 (the WAN link down); each DC stays whole and reachable from root. */
export function partition(p: NetPlan): void {
  if (p.dcs !== 2) throw new Error('a partition needs two DCs');
  ip('-n', regionNs(p, 1), 'link', 'set', 'dev', 'wan', 'down');
}

/** Cuts node j of DC k from everything (its port on its router's bridge down). */
export function isolate(p: NetPlan, dc: number, j: number): void {
  ip('-n', regionNs(p, dc), 'link', 'set', 'dev', nodePort(j), 'down');
}

/**
 * Every link up and every route back: taking an interface down deletes the routes through it,
 * so the WAN routes are replaced on every heal.
 */
export function heal(p: NetPlan): void {
  for (let k = 1; k <= p.dcs; k++) {
    const r = regionNs(p, k);
    for (let j = 1; j <= p.nodesPerDc; j++) ip('-n', r, 'link', 'set', 'dev', nodePort(j), 'up');
    ensureUplink(p, k);
  }
  if (p.dcs === 2) {
    for (const k of [1, 2]) ip('-n', regionNs(p, k), 'link', 'set', 'dev', 'wan', 'up');
    for (const k of [1, 2]) {
      const other = 3 - k;
      ip('-n', regionNs(p, k), 'route', 'replace', `10.${p.octet}.${other}.0/24`, 'via', wanAddress(p, other)); // prettier-ignore
    }
  }
}

export interface LinkStates {
  /** `up`, `down`, or `none` (one DC). */
  readonly wan: 'up' | 'down' | 'none';
  /** Node namespace → its port's state. */
  readonly nodes: Record<string, 'up' | 'down'>;
}

function adminUp(ns: string, dev: string): boolean {
  // `ip -o link show`: "<n>: dev@peer: <FLAGS,UP,…> …"; UP in the flags = administratively up.
  const flags = /<([^>]*)>/.exec(ip('-n', ns, '-o', 'link', 'show', 'dev', dev))?.[1] ?? '';
  return flags.split(',').includes('UP');
}

export function linkStates(p: NetPlan): LinkStates {
  const nodes: Record<string, 'up' | 'down'> = {};
  for (let k = 1; k <= p.dcs; k++) {
    for (let j = 1; j <= p.nodesPerDc; j++) {
      nodes[nodeNs(p, k, j)] = adminUp(regionNs(p, k), nodePort(j)) ? 'up' : 'down';
    }
  }
  const wan = p.dcs !== 2 ? 'none' : adminUp(regionNs(p, 1), 'wan') && adminUp(regionNs(p, 2), 'wan') ? 'up' : 'down'; // prettier-ignore
  return { wan, nodes };
}

/** Removes the plan's namespaces and root uplinks (call only with no node running in them). */
export function removeNet(p: NetPlan): string[] {
  const have = namespaces();
  const removed: string[] = [];
  for (const ns of planNamespaces(p).reverse()) {
    if (!have.has(ns)) continue;
    ip('netns', 'del', ns);
    removed.push(ns);
  }
  // Usually gone with its peer's namespace already.
  for (let k = 1; k <= p.dcs; k++) dropRootUplink(p, k);
  return removed;
}
