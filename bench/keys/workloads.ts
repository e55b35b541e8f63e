/**
 * The benchmark's workloads and the loop that drives one scheme through one of them,
 * checking the scheme's order against a plain array after every move.
 *
 *  random       300 posts 1 s–1 day apart (uniform), 100,000 moves of a random post to a random gap.
 *  same_gap_1s  300 posts exactly 1 s apart; 20,000 new posts, each put directly above post #150
 *               (so into the gap between it and the previous insert, as in the article).
 *  same_gap_1d  the same with posts 1 day apart.
 *  append       300 posts as in `random`; 10,000 times, the bottom post moves to the top.
 *  prepend      the same, the top post to the bottom.
 *
 * IDs follow src/domain/ids.ts. The simulated clock starts 1 s after the newest post and advances
 * 1 s per move; a move's ceiling is the ID issued at that instant.
 */
import { composeId } from '../../src/domain/ids.js';
import { createRng } from '../../tools/loadtest/rng.js';
import { WORKER } from './schemes.js';
import type { GridSim, Seed } from './types.js';

export const WORKLOADS = ['random', 'same_gap_1s', 'same_gap_1d', 'append', 'prepend'] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

const FIRST_POST_MS = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const DAY = 86_400_000;
const GRID = 300;

export interface Move {
  readonly postId: bigint;
  readonly from: number; // position of the post, -1 for a new post
  readonly to: number; // gap in the grid without the post
}

export interface Workload {
  readonly seeds: readonly Seed[];
  readonly moves: number;
  readonly startMs: number;
  /** Check the whole grid after every move (else around the move, every 1,000th move, the end). */
  readonly fullCheck: boolean;
  next(order: readonly bigint[], nowMs: number): Move;
}

const post = (ms: number): Seed => ({ postId: composeId({ ms, worker: WORKER, sequence: 0 }), ms });

function seeds(spacing: (i: number) => number): Seed[] {
  const out: Seed[] = [];
  for (let i = 0, ms = FIRST_POST_MS; i < GRID; i++, ms += spacing(i)) out.push(post(ms));
  return out;
}

export function workload(name: WorkloadName, seed: number): Workload {
  // Seeded (mulberry32): the same seed gives the same workload on every machine.
  const random = createRng(seed).next;
  const randomSpacing = () => SECOND + Math.floor(random() * (DAY - SECOND + 1));
  const start = (s: readonly Seed[]) => (s[s.length - 1] as Seed).ms + SECOND;
  switch (name) {
    case 'random': {
      const s = seeds(randomSpacing);
      return {
        seeds: s,
        moves: 100_000,
        startMs: start(s),
        fullCheck: true,
        next(order) {
          const from = Math.floor(random() * order.length);
          const to = Math.floor(random() * order.length); // gaps of the grid without the post
          return { postId: order[from] as bigint, from, to };
        },
      };
    }
    case 'same_gap_1s':
    case 'same_gap_1d': {
      const s = seeds(() => (name === 'same_gap_1s' ? SECOND : DAY));
      return {
        seeds: s,
        moves: 20_000,
        startMs: start(s),
        fullCheck: false,
        next: (_order, nowMs) => ({ postId: post(nowMs).postId, from: -1, to: GRID / 2 }),
      };
    }
    case 'append':
    case 'prepend': {
      const s = seeds(randomSpacing);
      const top = GRID - 1;
      return {
        seeds: s,
        moves: 10_000,
        startMs: start(s),
        fullCheck: false,
        next: (order) =>
          name === 'append'
            ? { postId: order[0] as bigint, from: 0, to: top }
            : { postId: order[top] as bigint, from: top, to: 0 },
      };
    }
  }
}

export interface RunResult {
  readonly moves: number;
  readonly rows_per_move: number;
  readonly relabels: number;
  readonly max_relabel_rows: number; // rows written by the largest relabelling move
  readonly inserts_before_first_relabel: number | null; // null: never relabelled
  readonly max_key_bytes: number;
  readonly mean_key_bytes: number; // over the grid after the workload
  readonly failures: number;
  readonly order_violations: number;
  readonly elapsed_ms: number;
}

/** Runs one workload through one scheme, checking its order against a plain array. */
export function run(w: Workload, sim: GridSim): RunResult {
  const began = performance.now();
  const order = w.seeds.map((s) => s.postId);
  let rows = 0;
  let relabels = 0;
  let maxRelabel = 0;
  let firstRelabel: number | null = null;
  let failures = 0;
  let violations = 0;
  for (let i = 0, now = w.startMs; i < w.moves; i++, now += SECOND) {
    const m = w.next(order, now);
    const out = sim.move(m.postId, m.from, m.to, now);
    if (out.failed) failures++;
    if ((out.relabel || out.failed) && firstRelabel === null) firstRelabel = i;
    if (out.relabel) {
      relabels++;
      maxRelabel = Math.max(maxRelabel, out.rows);
    }
    rows += out.rows;
    if (out.rows > 0) {
      if (m.from >= 0) order.splice(m.from, 1);
      order.splice(m.to, 0, m.postId);
    }
    // Around the move (a relabel window always contains the gap), and all of it now and then.
    const full = w.fullCheck || i % 1000 === 999;
    const span = Math.min(out.rows, 512) + 2;
    const [lo, hi] = full ? [0, order.length] : [m.to - span, m.to + span];
    if (!sim.agrees(order, lo, hi)) violations++;
  }
  if (!sim.agrees(order, 0, order.length)) violations++;
  let bytes = 0;
  for (let i = 0; i < order.length; i++) bytes += sim.keyBytes(i);
  return {
    moves: w.moves,
    rows_per_move: rows / w.moves,
    relabels,
    max_relabel_rows: maxRelabel,
    inserts_before_first_relabel: firstRelabel,
    max_key_bytes: sim.maxKeyBytes,
    mean_key_bytes: bytes / order.length,
    failures,
    order_violations: violations,
    elapsed_ms: performance.now() - began,
  };
}
