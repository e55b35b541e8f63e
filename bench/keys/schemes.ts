/**
 * The key schemes the benchmark compares, each simulated over one grid kept in ascending order.
 *
 * A scheme holds the grid as entries (post ID, key), bottom first, and answers one operation:
 * move the post at position `from` (or a new post, from = -1) into gap `to` of the grid without
 * it, reporting the rows written. Schemes whose keys can run out (doubles, LexoRank's length
 * limit) rebalance the whole grid when they do, as teams using them do; the move then counts as
 * a relabel (and, when precision ran out, as a failure).
 */
import { isDomainError } from '../../src/domain/errors.js';
import { composeId } from '../../src/domain/ids.js';
import { placeOne } from '../../src/domain/keys.js';
import { POLICIES, type RelabelPolicy } from './policies.js';
import { dense, floats, fractional, lexorank } from './peers.js';
import {
  ONE_ROW,
  type Entry,
  type KeyRules,
  type GridSim,
  type MoveOutcome,
  type Seed,
} from './types.js';

export const SCHEMES = [
  'regrid',
  'adaptive',
  'baseline',
  'dense',
  'float',
  'float_ms',
  'fractional_indexing',
  'lexorank',
] as const;
export type SchemeName = (typeof SCHEMES)[number];

/** Worker number of the simulated ID generator (posts and ceilings alike). */
export const WORKER = 1;
/** The ceiling of a move at `nowMs`: the next ID the generator issues then. */
export const ceilingAt = (nowMs: number) => composeId({ ms: nowMs, worker: WORKER, sequence: 1 });

class SimScheme<K> implements GridSim {
  readonly entries: Entry<K>[];
  maxKeyBytes = 0;

  constructor(
    seeds: readonly Seed[],
    private readonly rules: KeyRules<K>,
  ) {
    const keys = rules.seed(seeds);
    this.entries = seeds.map((s, i) => ({ postId: s.postId, key: keys[i] as K }));
    this.trackAll();
  }

  move(postId: bigint, from: number, to: number, nowMs: number): MoveOutcome {
    const old = from >= 0 ? this.entries.splice(from, 1)[0] : undefined;
    const outcome = this.rules.place(this.entries, postId, from, to, nowMs);
    if (outcome.rows === 0) {
      if (old !== undefined) this.entries.splice(from, 0, old); // refused: the post stays put
      return outcome;
    }
    if (typeof this.rules.bytes === 'number') return outcome;
    if (outcome.relabel) this.trackAll();
    else this.track(to);
    return outcome;
  }

  agrees(order: readonly bigint[], lo: number, hi: number): boolean {
    const { entries } = this;
    const { less } = this.rules;
    if (entries.length !== order.length) return false;
    const to = Math.min(hi, order.length);
    for (let i = Math.max(lo, 0); i < to; i++) {
      const e = entries[i] as Entry<K>;
      if (e.postId !== order[i]) return false;
      if (i > 0 && !less((entries[i - 1] as Entry<K>).key, e.key)) return false;
    }
    return true;
  }

  keyBytes(i: number): number {
    const { bytes } = this.rules;
    return typeof bytes === 'number' ? bytes : bytes((this.entries[i] as Entry<K>).key);
  }

  private track(i: number) {
    const b = this.keyBytes(i);
    if (b > this.maxKeyBytes) this.maxKeyBytes = b;
  }

  private trackAll() {
    for (let i = 0; i < this.entries.length; i++) this.track(i);
  }
}

export function makeScheme(name: SchemeName, seeds: readonly Seed[]): GridSim {
  switch (name) {
    case 'regrid':
      return new SimScheme(seeds, engine('bounded'));
    case 'adaptive':
      return new SimScheme(seeds, engine('adaptive'));
    case 'baseline':
      return new SimScheme(seeds, engine('doubling'));
    case 'dense':
      return new SimScheme(seeds, dense);
    case 'float':
      return new SimScheme(seeds, floats(false));
    case 'float_ms':
      return new SimScheme(seeds, floats(true));
    case 'fractional_indexing':
      return new SimScheme(seeds, fractional);
    case 'lexorank':
      return new SimScheme(seeds, lexorank);
  }
}

/** regrid's key engine: effective keys seeded by post IDs, the whole grid as the slice. */
export function engine(policy: RelabelPolicy): KeyRules<bigint> {
  return {
    seed: (seeds) => seeds.map((s) => s.postId),
    place(entries, postId, _from, to, nowMs) {
      const slice = { entries, gap: to, reachesBottom: true, reachesTop: true };
      let placed;
      try {
        placed = placeOne(slice, postId, ceilingAt(nowMs), POLICIES[policy]);
      } catch (e) {
        if (isDomainError(e) && e.code === 'key_space_exhausted') {
          return { rows: 0, relabel: false, failed: true };
        }
        throw e;
      }
      if (placed.kind !== 'placed') throw new Error('need_more for a slice of the whole grid');
      const { writes } = placed;
      const at = writes.findIndex((w) => w.postId === postId);
      entries.splice(to, 0, { postId, key: (writes[at] as { key: bigint }).key });
      // writes cover one contiguous window of the new order, the moved post at index `at`.
      const start = to - at;
      writes.forEach((w, i) => {
        const e = entries[start + i];
        if (e?.postId !== w.postId) throw new Error(`engine wrote ${w.postId} out of its window`);
        e.key = w.key;
      });
      return placed.relabelled === 0
        ? ONE_ROW
        : { rows: writes.length, relabel: true, failed: false };
    },
    less: (a, b) => a < b,
    bytes: 8,
  };
}
