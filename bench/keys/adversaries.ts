/**
 * Adversaries for the key engine (issue 27): each picks the next move (entry `from` into gap `to`
 * of the grid without it) knowing the whole grid, to make the policy write as many rows as it can.
 *
 *  same_gap_both     a random post goes directly above the middle post, then directly below it,
 *                    alternately: two same-gap chains, one on each side of one post.
 *  move_to_top       the bottom post moves to the top.          move_to_bottom  the top to the bottom.
 *  alternating_ends  a random post to the top, then one to the bottom, alternately.
 *  sawtooth          ramps of 64 moves: each puts a random post directly above the previous one,
 *                    every ramp starting again right above the same post.
 *  greedy_gap        a random post into the currently smallest gap (a heap of gaps, kept lazily).
 *  search            1-ply Monte-Carlo search: of 12 candidate moves (the 6 smallest gaps, 4 random
 *                    gaps, top, bottom; each with a random post), the one the policy answers with
 *                    most rows, ties to the smaller gap.
 */
import { createRng } from '../../tools/loadtest/rng.js';
import type { CappedGrid } from './capped-grid.js';

export const ADVERSARIES = [
  'same_gap_both',
  'move_to_top',
  'move_to_bottom',
  'alternating_ends',
  'sawtooth',
  'greedy_gap',
  'search',
] as const;
export type AdversaryName = (typeof ADVERSARIES)[number];

export interface Move {
  readonly from: number;
  readonly to: number;
}
export type Adversary = (grid: CappedGrid, step: number, ceiling: bigint) => Move;

/** Gap j lies between entries j − 1 and j of the full grid; `from` must not touch it. */
const into = (from: number, j: number): Move => ({ from, to: j > from ? j - 1 : j });

export function adversary(name: AdversaryName, seed: number, grid: CappedGrid): Adversary {
  const random = createRng(seed).next;
  const pick = (n: number) => Math.floor(random() * n);
  /** A random entry not touching gap j. */
  const other = (g: CappedGrid, j: number) => {
    let i = pick(g.length);
    while (i === j || i === j - 1) i = (i + 1) % g.length;
    return i;
  };
  const heap = new GapHeap(grid);
  switch (name) {
    case 'same_gap_both': {
      const pivot = grid.entries[grid.length >> 1]!.postId;
      return (g, step) => {
        const at = g.entries.findIndex((e) => e.postId === pivot);
        const j = step % 2 === 0 ? at + 1 : at;
        return into(other(g, j), j);
      };
    }
    case 'move_to_top':
      return (g) => into(0, g.length);
    case 'move_to_bottom':
      return (g) => into(g.length - 1, 0);
    case 'alternating_ends':
      return (g, step) =>
        step % 2 === 0 ? into(other(g, g.length), g.length) : into(other(g, 0), 0);
    case 'sawtooth': {
      const base = grid.entries[grid.length >> 2]!.postId;
      let last = base;
      return (g, step) => {
        if (step % 64 === 0) last = base;
        const j = g.entries.findIndex((e) => e.postId === last) + 1;
        const from = other(g, j);
        last = g.entries[from]!.postId;
        return into(from, j);
      };
    }
    case 'greedy_gap':
      return (g) => {
        heap.refresh(g);
        const j = heap.smallest(g, 1)[0]!;
        return into(other(g, j), j);
      };
    case 'search':
      return (g, _step, ceiling) => {
        heap.refresh(g);
        const gaps = [...heap.smallest(g, 6), pick(g.length + 1), pick(g.length + 1)];
        gaps.push(pick(g.length + 1), pick(g.length + 1), 0, g.length);
        let best: Move | undefined;
        let bestRows = -1;
        for (const j of gaps) {
          const m = into(other(g, j), j);
          const rows = g.probe(m.from, m.to, ceiling);
          if (rows > bestRows) [best, bestRows] = [m, rows];
        }
        return best!;
      };
  }
}

/** Min-heap of gaps by size, entries (size, lower key); stale ones are dropped when popped. */
class GapHeap {
  private readonly items: [bigint, bigint][] = [];

  constructor(grid: CappedGrid) {
    for (let j = 1; j < grid.length; j++) this.push(grid, j);
  }

  /** Pushes the gaps next to every entry the last move rewrote. */
  refresh(grid: CappedGrid) {
    for (const i of grid.touched) {
      this.push(grid, i);
      this.push(grid, i + 1);
    }
  }

  /** The `k` smallest live gaps (as full-grid gap indices), smallest first. */
  smallest(grid: CappedGrid, k: number): number[] {
    const out: number[] = [];
    const keep: [bigint, bigint][] = [];
    while (out.length < k && this.items.length > 0) {
      const [size, lower] = this.pop();
      const i = grid.indexOf(lower);
      const upper = grid.entries[i + 1];
      if (grid.entries[i]?.key !== lower || !upper || upper.key - lower !== size) continue;
      if (!out.includes(i + 1)) out.push(i + 1);
      keep.push([size, lower]);
    }
    for (const item of keep) this.insert(item);
    return out.length > 0 ? out : [grid.length >> 1];
  }

  private push(grid: CappedGrid, j: number) {
    const lo = grid.entries[j - 1];
    const hi = grid.entries[j];
    if (lo && hi) this.insert([hi.key - lo.key, lo.key]);
  }

  private insert(item: [bigint, bigint]) {
    const h = this.items;
    h.push(item);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (h[p]![0] <= h[i]![0]) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private pop(): [bigint, bigint] {
    const h = this.items;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]![0] < h[m]![0]) m = l;
        if (r < h.length && h[r]![0] < h[m]![0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
