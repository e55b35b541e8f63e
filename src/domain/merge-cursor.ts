/**
 * The merge's core (merge.ts has `mergeGrid` and the worked example): the shared types, the
 * display order, and the state machine `mergeGrid` feeds.
 */

/** One row of the display order. Structurally the same as `Keyed` in keys/slice.ts. */
export interface GridEntry {
  readonly postId: bigint;
  readonly key: bigint; // effective key
}

/** A point in display order; the merge yields only entries strictly after it. */
export interface GridPosition {
  readonly key: bigint;
  readonly postId: bigint;
}

/** 'down': display order (key DESC, postId DESC). 'up': the reverse, from the bottom up. */
export type MergeDirection = 'down' | 'up';

export interface MergeOptions {
  /** Pinned post IDs: excluded from both inputs (pins are shown separately, first page only). */
  readonly pinned?: Iterable<bigint>;
  /** Start strictly after this position (in display order; for `up`, strictly above it). */
  readonly after?: GridPosition;
  /** Stop after this many entries (default: no limit). Must be a non-negative integer. */
  readonly limit?: number;
  /**
   * 'down' (default): entries in display order, the chronological stream strictly descending.
   * 'up': ascending by (key, postId) from `after` (strictly above it), the stream strictly
   * ascending. The overrides are handed over in display order either way.
   */
  readonly direction?: MergeDirection;
}

/** Total order used everywhere: positive when a comes before b in display order. */
export function compareDisplay(a: GridPosition, b: GridPosition): number {
  if (a.key !== b.key) return a.key > b.key ? 1 : -1;
  if (a.postId !== b.postId) return a.postId > b.postId ? 1 : -1;
  return 0;
}

/** Positive when `a` comes first on a walk in `direction`. */
const walkOrder = (direction: MergeDirection) =>
  direction === 'down'
    ? compareDisplay
    : (a: GridPosition, b: GridPosition): number => compareDisplay(b, a);

/**
 * The merge state machine. `offer` takes the next chronological ID and appends whatever can now
 * be emitted; `finish` flushes the overrides left when the stream ends. Invariant: everything
 * emitted so far comes before every override at index >= `next` and before every ID not yet
 * offered.
 *
 * Every ID offered moves the stream's position, whether its row is shown or only skipped (an
 * overridden or pinned post): each later row comes strictly after it, so every override at or
 * before that position is final and goes out at once. Waiting for a *shown* row instead would
 * make a run of overridden rows hold back overrides that are already known to come first, and a
 * page of a grid whose posts all moved would stream the whole partition. With this rule a page
 * pulls the rows from its cursor's key down to its last entry's key, plus one.
 */
export class MergeCursor {
  private readonly first: (a: GridPosition, b: GridPosition) => number;
  private readonly direction: MergeDirection;
  private readonly overrides: readonly GridEntry[]; // in walk order
  private readonly pinned: ReadonlySet<bigint>;
  private readonly overridden: ReadonlySet<bigint>; // their rows are only skipped, like pins'
  private readonly after: GridPosition | undefined;
  private readonly limit: number;
  private next = 0; // index of the next override to emit
  private emitted = 0;
  private lastOffered: bigint | undefined;

  constructor(overrides: readonly GridEntry[], options: MergeOptions) {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (limit !== Number.POSITIVE_INFINITY && (!Number.isInteger(limit) || limit < 0)) {
      throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    }
    this.limit = limit;
    this.direction = options.direction ?? 'down';
    this.first = walkOrder(this.direction);
    this.after = options.after;
    this.pinned = new Set(options.pinned ?? []);
    // Every override hides its post from the stream, even one that is pinned or before `after`.
    this.overridden = overriddenIds(overrides);
    // The overrides strictly after `after` in walk order: a contiguous run of the sorted array.
    const after = this.after;
    let run: readonly GridEntry[] = overrides;
    if (after && this.direction === 'down') {
      run = overrides.slice(firstIndex(overrides, (o) => compareDisplay(o, after) < 0));
    } else if (after) {
      run = overrides.slice(
        0,
        firstIndex(overrides, (o) => compareDisplay(o, after) <= 0),
      );
    }
    const shown = this.pinned.size ? run.filter((o) => !this.pinned.has(o.postId)) : [...run];
    this.overrides = this.direction === 'down' ? shown : shown.reverse();
  }

  get full(): boolean {
    return this.emitted >= this.limit;
  }

  offer(postId: bigint, out: GridEntry[]): void {
    const prev = this.lastOffered;
    if (prev !== undefined && (this.direction === 'down' ? postId >= prev : postId <= prev)) {
      const how = this.direction === 'down' ? 'descending' : 'ascending';
      throw new Error(`chronological stream must be strictly ${how} (${postId} after ${prev})`);
    }
    this.lastOffered = postId;
    if (this.full) return;
    const row: GridEntry = { postId, key: postId };
    // An override equal to the row's position is the row's own (key = its ID): it goes now too.
    while (this.next < this.overrides.length && !this.full) {
      const o = this.overrides[this.next]!;
      if (this.first(o, row) < 0) break;
      this.push(o, out);
      this.next += 1;
    }
    if (this.full || this.overridden.has(postId) || this.pinned.has(postId)) return;
    if (this.after && this.first(row, this.after) >= 0) return; // the stream may start early
    this.push(row, out);
  }

  finish(out: GridEntry[]): void {
    while (this.next < this.overrides.length && !this.full) {
      this.push(this.overrides[this.next]!, out);
      this.next += 1;
    }
  }

  private push(e: GridEntry, out: GridEntry[]): void {
    out.push(e);
    this.emitted += 1;
  }
}

/** The post IDs of an override list, after checking that it is sorted. */
function overriddenIds(overrides: readonly GridEntry[]): ReadonlySet<bigint> {
  for (let i = 1; i < overrides.length; i++) {
    if (compareDisplay(overrides[i - 1]!, overrides[i]!) <= 0) {
      throw new Error('overrides must be sorted by (key DESC, postId DESC) without duplicates');
    }
  }
  return new Set(overrides.map((o) => o.postId));
}

/** The first index whose entry satisfies `past` (false up to some index, true from it on). */
function firstIndex(list: readonly GridEntry[], past: (e: GridEntry) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past(list[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Offers a page's IDs until the merge is full; true when it is. */
export function offerAll(core: MergeCursor, ids: readonly bigint[], out: GridEntry[]): boolean {
  for (const id of ids) {
    core.offer(id, out);
    if (core.full) return true;
  }
  return core.full;
}
