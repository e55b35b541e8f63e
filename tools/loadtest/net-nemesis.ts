/**
 * Network nemeses for a run on the local multi-DC ring (tools/infra/dc-ring.ts): partition the
 * two DCs, isolate one node, heal, each a link taken down or up (tools/infra/netns.ts), and a
 * wait for what gossip makes of it, so a caller can log when Cassandra itself noticed.
 * Every action reports how long the link change took and, once waited for, how long until the
 * given node saw the others as it should (`nodetool status`, ~2 s per look).
 */
import type { DcNode } from '../infra/dc-ring.js';
import { heal, isolate, partition, type NetPlan } from '../infra/netns.js';
import { sleep } from '../infra/process-utils.js';
import { gossipView, type NodeStateName } from '../infra/ring.js';

export type NetFault =
  | { readonly kind: 'partition' }
  | { readonly kind: 'isolate'; readonly node: DcNode }
  | { readonly kind: 'heal' };

export interface NetFaultTiming {
  readonly fault: string;
  /** The `ip link` calls. */
  readonly linkMs: number;
}

export function applyNetFault(plan: NetPlan, fault: NetFault): NetFaultTiming {
  const t0 = performance.now();
  if (fault.kind === 'partition') partition(plan);
  else if (fault.kind === 'isolate') isolate(plan, fault.node.dc, fault.node.index);
  else heal(plan);
  const name = fault.kind === 'isolate' ? `isolate ${fault.node.name}` : fault.kind;
  return { fault: name, linkMs: performance.now() - t0 };
}

/**
 * Waits until node `via` sees every node of `others` in `state` (gossip); the milliseconds it
 * took. Throws after `deadlineMs` with what it saw last.
 */
export async function waitForGossip(
  via: DcNode,
  others: readonly DcNode[],
  state: NodeStateName,
  deadlineMs = 120_000,
): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const view = await gossipView(via).catch(() => new Map<string, NodeStateName>());
    if (others.every((n) => view.get(n.layout.address) === state)) return performance.now() - t0;
    if (performance.now() - t0 > deadlineMs) {
      const seen = [...view].map(([a, s]) => `${a} ${s}`).join(', ') || 'nothing';
      throw new Error(`${via.name} did not see ${state} within ${deadlineMs / 1000}s (sees ${seen})`); // prettier-ignore
    }
    await sleep(250);
  }
}
