/**
 * One grid of the adversary benchmark: entries (postId, key) ascending, all of them overridden,
 * moved by regrid's key engine with the whole grid as the slice. Under a row cap a move is the
 * sequence of writes placeCapped asks for (each would be its own compare-and-set); without one
 * it is the one write placeMany answers. Every write is checked: keys stay strictly ascending.
 */
import { placeCapped, placeOne, type Keyed } from '../../src/domain/keys.js';
import { POLICIES, type RelabelPolicy } from './policies.js';

export interface MoveRows {
  readonly rows: number; // all rows the move wrote, over all its writes
  readonly worstWrite: number; // the largest single write
  readonly writes: number;
}

export class CappedGrid {
  readonly entries: Keyed[];
  /** Indices of entries rewritten by the last move (for the greedy adversary's gap heap). */
  touched: number[] = [];

  constructor(
    keys: readonly bigint[],
    readonly policy: RelabelPolicy,
    readonly cap: number | undefined,
  ) {
    this.entries = keys.map((key, i) => ({ postId: BigInt(i + 1), key }));
  }

  get length(): number {
    return this.entries.length;
  }

  /** Index of the entry with exactly this key (keys are distinct). */
  indexOf(key: bigint): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Rows the policy would write to move entry `from` into gap `to` (of the grid without it). */
  probe(from: number, to: number, ceiling: bigint): number {
    const [moved] = this.entries.splice(from, 1);
    try {
      const slice = { entries: this.entries, gap: to, reachesBottom: true, reachesTop: true };
      const p = placeOne(slice, moved!.postId, ceiling, POLICIES[this.policy]);
      return p.kind === 'placed' ? p.writes.length : 0;
    } finally {
      this.entries.splice(from, 0, moved!);
    }
  }

  /** Moves entry `from` into gap `to` of the grid without it. */
  move(from: number, to: number, ceiling: bigint): MoveRows {
    const [moved] = this.entries.splice(from, 1);
    const postId = moved!.postId;
    const slice = { entries: this.entries, gap: to, reachesBottom: true, reachesTop: true };
    this.touched = [];
    if (this.cap === undefined) {
      const p = placeOne(slice, postId, ceiling, POLICIES[this.policy]);
      if (p.kind !== 'placed') throw new Error('need_more on the whole grid');
      this.entries.splice(to, 0, { postId, key: 0n });
      const start = to - p.writes.findIndex((w) => w.postId === postId);
      p.writes.forEach((w, i) => this.write(start + i, w));
      this.check(start - 1, start + p.writes.length + 1);
      return { rows: p.writes.length, worstWrite: p.writes.length, writes: 1 };
    }
    let rows = 0;
    let worst = 0;
    for (let n = 1; n <= 100_000; n++) {
      const p = placeCapped(slice, [postId], ceiling, this.cap, POLICIES[this.policy]);
      if (p.kind === 'need_more') throw new Error('need_more on the whole grid');
      rows += p.writes.length;
      worst = Math.max(worst, p.writes.length);
      if (p.kind === 'placed') this.entries.splice(to, 0, { postId, key: 0n });
      for (const w of p.writes) {
        const i = w.postId === postId ? to : this.findPost(w.postId, to);
        this.write(i, w);
      }
      for (const i of p.writes.map((w) => this.findPost(w.postId, to))) this.check(i - 1, i + 2);
      if (p.kind === 'placed') return { rows, worstWrite: worst, writes: n };
    }
    throw new Error('a capped move did not finish in 100,000 writes');
  }

  /** Full check: every key strictly above the one below it, inside (0, ceiling). */
  checkAll(ceiling: bigint): void {
    this.check(0, this.entries.length);
    const top = this.entries[this.entries.length - 1];
    if (top && top.key >= ceiling) throw new Error('a key reached the ceiling');
  }

  private findPost(postId: bigint, near: number): number {
    // Writes stay close to the gap; search outward from it.
    const { entries } = this;
    for (let d = 0; d < entries.length; d++) {
      if (entries[near + d]?.postId === postId) return near + d;
      if (entries[near - d]?.postId === postId) return near - d;
    }
    throw new Error(`post ${postId} not on the grid`);
  }

  private write(i: number, w: Keyed) {
    const e = this.entries[i];
    if (e?.postId !== w.postId) throw new Error(`write for ${w.postId} landed on ${e?.postId}`);
    this.entries[i] = { postId: w.postId, key: w.key };
    this.touched.push(i);
  }

  private check(lo: number, hi: number) {
    const { entries } = this;
    for (let i = Math.max(lo, 1); i < Math.min(hi, entries.length); i++) {
      if (!(entries[i - 1]!.key < entries[i]!.key) || entries[i - 1]!.key <= 0n) {
        throw new Error(`order broken at ${i}: ${entries[i - 1]!.key} !< ${entries[i]!.key}`);
      }
    }
  }
}
