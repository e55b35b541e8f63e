/**
 * The key-space hierarchy of the 'bounded' policy (relabel.ts), the spread over a node, and the
 * proven bound (docs/key-engine.md, "The bounded policy and its proof").
 *
 * For a ceiling C, the usable keys [0, C) are cut at every level t (LEAF_LEVEL <= t) into nodes:
 *  - full blocks [k·2^t, (k+1)·2^t) that end at or below C_t = 2^t·(⌊C/2^t⌋ − 1), and
 *  - the top node N_t = [max(C_t, 0), C), which holds between 2^t and 2^(t+1) keys.
 * At and above the root level (the first t with ⌊C/2^t⌋ <= 1) the one node is [0, C). Each level
 * partitions [0, C), every node lies inside one node of the next level (a full block's parent is
 * a full block or N_(t+1); N_t ⊂ N_(t+1)), and a node of level t has 2 or 3 children of level
 * t − 1 (N_t: N_(t−1) and one or two full blocks), so no child is a sliver of its parent: that is
 * why the top is cut from C downward instead of 0-aligned blocks clipped at C.
 *
 * A node of level t may hold at most CAPACITY[t] entries (the same for all nodes of a level):
 * CAPACITY[LEAF_LEVEL] = LEAF_CAPACITY, each level 3/2 of the one below (rounded down).
 */
import { DomainError } from '../errors.js';

/** The lowest level of the hierarchy: nodes of 2^24 keys (2 ms of post IDs). */
export const LEAF_LEVEL = 24;
/** Entries a leaf may hold: 32 in 2^24 keys leaves gaps of at least 2^18 when spread. */
const LEAF_CAPACITY = 32;
/** Most neighbours tier A (the adaptive window) may rewrite; the bound counts them. */
export const TIER_A_WINDOW = 32;
/** Most potential a tier-A relabel may add by moving neighbours across nodes (crossingCharge). */
export const TIER_A_BUDGET = 1024;
const TOP_LEVEL = 63;

/** CAPACITY[t] for t in LEAF_LEVEL..63 (undefined below). */
export const CAPACITY: readonly number[] = (() => {
  const out: number[] = [];
  let c = LEAF_CAPACITY;
  for (let t = LEAF_LEVEL; t <= TOP_LEVEL; t++) {
    out[t] = c;
    c += Math.floor(c / 2);
  }
  return out;
})();

interface KeyNode {
  readonly level: number;
  readonly start: bigint; // inclusive
  readonly end: bigint; // exclusive, <= ceiling
}

/** The node of level `t` that holds key `x` (0 <= x < ceiling). */
export function nodeAt(x: bigint, t: number, ceiling: bigint): KeyNode {
  const shift = BigInt(t);
  const q = ceiling >> shift;
  if (q <= 1n) return { level: t, start: 0n, end: ceiling };
  const top = (q - 1n) << shift;
  if (x >= top) return { level: t, start: top, end: ceiling };
  const start = (x >> shift) << shift;
  return { level: t, start, end: start + (1n << shift) };
}

/** The first level whose one node is the whole of [0, ceiling). */
export function rootLevel(ceiling: bigint): number {
  let t = LEAF_LEVEL;
  while (t < TOP_LEVEL && ceiling >> BigInt(t) > 1n) t++;
  return t;
}

/** The children of `node` (level t − 1 nodes covering it, ascending); [] for a leaf. */
function childrenOf(node: KeyNode, ceiling: bigint): KeyNode[] {
  if (node.level <= LEAF_LEVEL) return [];
  const out: KeyNode[] = [];
  for (let at = node.start; at < node.end;) {
    const child = nodeAt(at, node.level - 1, ceiling);
    out.push(child);
    at = child.end;
  }
  return out;
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

/**
 * The potential's weight of level t: w_t = κ_t / (κ_(t−1) + 1 − ⌈κ_t/2⌉), κ = CAPACITY. A spread
 * of a level-t node (at most κ_t rows) releases at least κ_(t−1) + 1 − ⌈κ_t/2⌉ units of its
 * overflowing child's excess, each worth w_t.
 */
function weight(t: number): number {
  const k = CAPACITY[t]!;
  const below = CAPACITY[t - 1]!;
  return k / (below + 1 - Math.ceil(k / 2));
}

/**
 * An upper bound on what moving entries from keys `from[i]` to `to[i]` adds to the potential Φ
 * (docs/key-engine.md), all keys inside (lo, hi), where every entry with a key in (lo, hi) is
 * among the moved ones (a relabel window and its bounds). Per level t >= LEAF_LEVEL, a node Q of
 * level t contributes w_(t+1) · ((c' − h)^+ − (c − h)^+), h = ⌈κ_(t+1)/2⌉, c and c' its counts
 * before and after: exactly when Q lies inside (lo, hi) (its entries are all moved ones), else at
 * most w_(t+1) · max(0, c' − c). A move whose two keys share a node at level t shares it above.
 */
export function moveCharge(
  from: readonly bigint[],
  to: readonly bigint[],
  lo: bigint,
  hi: bigint,
  ceiling: bigint,
): number {
  let live = from.map((_, i) => i).filter((i) => from[i] !== to[i]);
  let charge = 0;
  for (let t = LEAF_LEVEL; t < TOP_LEVEL && live.length > 0; t++) {
    const w = weight(t + 1);
    const h = Math.ceil(CAPACITY[t + 1]! / 2);
    const nodes = new Map<bigint, { node: KeyNode; delta: number }>();
    const touch = (key: bigint, d: number) => {
      const node = nodeAt(key, t, ceiling);
      const seen = nodes.get(node.start) ?? { node, delta: 0 };
      seen.delta += d;
      nodes.set(node.start, seen);
    };
    live = live.filter((i) => {
      if (nodeAt(from[i]!, t, ceiling).start === nodeAt(to[i]!, t, ceiling).start) return false;
      touch(from[i]!, -1);
      touch(to[i]!, 1);
      return true;
    });
    for (const { node, delta } of nodes.values()) {
      if (node.start > lo && node.end <= hi) {
        const before = from.filter((k) => k >= node.start && k < node.end).length;
        charge += w * (Math.max(0, before + delta - h) - Math.max(0, before - h));
      } else if (delta > 0) {
        charge += w * delta;
      }
    }
  }
  return charge;
}

/**
 * The proven amortized bound on rows per move for a grid of at most n entries (the moved post
 * included), from any start: rows after m moves <= bound(n) · m + Φ_0 (docs/key-engine.md).
 *   S(n) = Σ w_t over levels t > LEAF_LEVEL with ⌈κ_t/2⌉ < n  (levels whose terms can be > 0)
 *   bound(n) = max((1 + TIER_A_WINDOW) · (1 + S(n)), LEAF_CAPACITY + S(n))
 */
export function amortizedBound(n: number): number {
  let s = 0;
  for (let t = LEAF_LEVEL + 1; t <= TOP_LEVEL; t++) {
    if (Math.ceil(CAPACITY[t]! / 2) < n) s += weight(t);
  }
  return Math.max(1 + TIER_A_WINDOW + TIER_A_BUDGET, LEAF_CAPACITY) + s;
}

/**
 * The potential Φ of the proof for ascending `keys` under `ceiling`:
 * Σ over levels t >= LEAF_LEVEL and nodes Q of level t of w_(t+1) · (count(Q) − ⌈κ_(t+1)/2⌉)^+.
 * Rows written over m moves never exceed amortizedBound(n) · m + Φ of the starting grid.
 */
export function potential(keys: readonly bigint[], ceiling: bigint): number {
  let phi = 0;
  for (let t = LEAF_LEVEL; t < TOP_LEVEL; t++) {
    const h = Math.ceil(CAPACITY[t + 1]! / 2);
    if (h >= keys.length) break; // no node can exceed h from here up (capacities grow)
    const w = weight(t + 1);
    let run = 0;
    let start: bigint | undefined;
    for (const key of keys) {
      const s = nodeAt(key, t, ceiling).start;
      if (s === start) run++;
      else {
        phi += w * Math.max(0, run - h);
        [start, run] = [s, 1];
      }
    }
    phi += w * Math.max(0, run - h);
  }
  return phi;
}
