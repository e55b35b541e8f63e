/**
 * The relabel policy 'bounded': rows per move have a proven amortized bound (nodes.ts,
 * amortizedBound; the proof is in docs/key-engine.md), while friendly workloads keep the adaptive
 * policy's figures.
 *
 *  1. The gap has room: the adaptive policy's placement in the gap (one row per post).
 *  2. Tier A: the adaptive window rule limited to TIER_A_WINDOW neighbours whose moves add at most
 *     TIER_A_BUDGET to the potential (crossingCharge: an entry moved within its leaf adds none).
 *  3. Tier B: Bender et al.'s density rule on the hierarchy of nodes.ts. Of the nodes holding the
 *     gap (the node of the entry below it, or of key 1 at the bottom), level LEAF_LEVEL upward,
 *     take the first whose entries plus the moved posts fit its capacity, and spread them over it:
 *     split equally among its children, recursively, and evenly inside each leaf.
 *  4. No node fits (more entries than the root's capacity, ~10^8): the whole grid, as adaptive.
 *
 * Invariants are those of every policy (slice.ts): the written window [from, to) is the run of
 * entries whose keys lie in the node, so its bounds are keys outside the node and the new keys,
 * inside it, keep the order; a node not covered by the slice gives NEED_MORE.
 */
import { DomainError } from '../errors.js';
import {
  childrenOf,
  CAPACITY,
  moveCharge,
  TIER_A_BUDGET,
  LEAF_LEVEL,
  nodeAt,
  rootLevel,
  TIER_A_WINDOW,
  type KeyNode,
} from './nodes.js';
import { placeLocal, wholeGrid } from './local-window.js';
import { NEED_MORE, type RelabelResult, type Slice } from './slice.js';

export function placeBounded(slice: Slice, count: number, ceiling: bigint): RelabelResult {
  const local = placeLocal(slice, count, ceiling, TIER_A_WINDOW, (plan) => {
    const { from, to, keys } = plan;
    const window = slice.entries.slice(from, to);
    const moved = window.map((_, j) => keys[from + j < slice.gap ? j : j + count]!);
    const lo = from > 0 ? slice.entries[from - 1]!.key : 0n;
    const hi = to < slice.entries.length ? slice.entries[to]!.key : ceiling;
    const before = window.map((e) => e.key);
    return moveCharge(before, moved, lo, hi, ceiling) <= TIER_A_BUDGET;
  });
  if (local !== undefined) return local;
  const { entries, gap } = slice;
  const anchor = gap > 0 ? entries[gap - 1]!.key : 1n;
  const top = rootLevel(ceiling);
  for (let t = LEAF_LEVEL; t <= top; t++) {
    const node = nodeAt(anchor, t, ceiling);
    const from = lowerBound(entries, node.start);
    const to = lowerBound(entries, node.end);
    if ((from === 0 && !slice.reachesBottom) || (to === entries.length && !slice.reachesTop)) {
      return NEED_MORE; // the node may hold entries the slice does not
    }
    const held = to - from + count;
    if (held > CAPACITY[t]! || BigInt(held) >= node.end - node.start) continue;
    // The gap lies inside [from, to]: the anchor's node holds the entry below it.
    return { from, to, keys: spreadIn(node, held, ceiling) };
  }
  return wholeGrid(slice, count, ceiling);
}

/** First index whose key is >= key (entries ascend). */
function lowerBound(entries: Slice['entries'], key: bigint): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `n` ascending keys inside `node`: the children get ⌊n/k⌋ or ⌈n/k⌉ each (k = 2 or 3, the extra
 * ones to the lowest), recursively, so a descendant of level t' gets at most ⌈n / 2^(t − t')⌉;
 * a leaf spreads its share evenly, never on its start key (so never on key 0).
 */
export function spreadIn(node: KeyNode, n: number, ceiling: bigint): bigint[] {
  const out: bigint[] = [];
  const walk = (x: KeyNode, m: number) => {
    if (m === 0) return;
    const kids = childrenOf(x, ceiling);
    if (kids.length === 0) {
      const len = x.end - x.start;
      if (len <= BigInt(m)) {
        throw new DomainError('key_space_exhausted', 'a key-space node is too small to spread');
      }
      for (let i = 1; i <= m; i++) out.push(x.start + (len * BigInt(i)) / BigInt(m + 1));
      return;
    }
    const share = Math.floor(m / kids.length);
    const extra = m % kids.length;
    kids.forEach((kid, i) => walk(kid, share + (i < extra ? 1 : 0)));
  };
  walk(node, n);
  return out;
}
