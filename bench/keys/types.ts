/** Types shared by the key benchmark's scheme simulations (schemes.ts, peers.ts). */

export interface Seed {
  readonly postId: bigint;
  readonly ms: number; // creation time, unix milliseconds
}

export interface Entry<K> {
  readonly postId: bigint;
  key: K;
}

export interface MoveOutcome {
  readonly rows: number; // rows written, the moved post included (0: the move was refused)
  readonly relabel: boolean; // rows other than the moved post were rewritten
  readonly failed: boolean; // the keys ran out (precision, length or key space)
}

/**
 * How one key type behaves. `place` inserts the moved post (it came from position `from` of the
 * grid, -1 for a new post) at `to` of `entries`, which already lack it, and may rewrite others.
 */
export interface KeyRules<K> {
  seed(seeds: readonly Seed[]): K[];
  place(entries: Entry<K>[], postId: bigint, from: number, to: number, nowMs: number): MoveOutcome;
  less(a: K, b: K): boolean;
  bytes: number | ((k: K) => number); // key size in bytes, fixed or per key
}

/** One scheme's simulated grid, as the workloads drive and check it. */
export interface GridSim {
  readonly entries: readonly { readonly postId: bigint }[]; // ascending by key
  /** Moves the post at `from` (-1: a new post) into gap `to` of the grid without it. */
  move(postId: bigint, from: number, to: number, nowMs: number): MoveOutcome;
  /** Positions [lo, hi) hold `order`'s posts and their keys strictly increase there. */
  agrees(order: readonly bigint[], lo: number, hi: number): boolean;
  keyBytes(i: number): number;
  readonly maxKeyBytes: number; // longest key ever held
}

/** The common outcome: the moved post's row and nothing else. */
export const ONE_ROW: MoveOutcome = { rows: 1, relabel: false, failed: false };
