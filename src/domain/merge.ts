/**
 * Read-time merge of a grid's two sources into display order.
 *
 * A grid is stored as two sequences (see cql/001_core.cql):
 *   - the override partition: posts that were moved, each with its own sort key, and
 *   - the chronological list of post IDs, newest first, which moves never touch.
 * A post's effective key is its override key when it has one, else its own ID. Unpinned posts are
 * displayed by (effective key DESC, post_id DESC); pins are placed first by the caller.
 *
 * The merge is a two-way merge of sorted sequences. The chronological stream is filtered (pinned
 * IDs and IDs with an override are dropped; the override row is authoritative for those posts) and
 * then each remaining ID is its own key, so both inputs are sorted by the same (key, postId) DESC
 * order and the merge never needs to buffer more than the override array it was given. A dropped
 * row still tells the merge how far down the stream is, so the overrides above it go out without
 * waiting for a row that is shown (see `MergeCursor`).
 *
 * Worked example (keys are small for readability): overrides [{post 2, key 9}], chronological
 * [8, 5, 2, 1] → 2 is skipped in the stream, so the output is (9,2) (8,8) (5,5) (1,1). With
 * `after = {key: 8, postId: 8}` the output starts at (5,5). Every post moved, overrides
 * [{8, key 9}, {5, key 6}, {2, key 3}], limit 2: the first row (8) puts (9,8) out, the second (5)
 * puts (6,5) out, and the rows below 5 are never read.
 *
 * Membership is not the merge's business: an override is emitted as given, whether or not its
 * post's row is among the rows read (a page's stream starts at the cursor's key, so most rows of
 * the posts it shows are never read anyway). The writers keep the override partition to posts on
 * the grid: a removal drops the override in the same compare-and-set, a move checks the post's
 * row after the snapshot, and the audit reports any `orphan_override`.
 *
 * One core (`MergeCursor`) holds all the logic; the sync and async front ends only feed it. It
 * also walks the other way (`direction: 'up'`) for the slice above a move's gap.
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

/**
 * A chronological source that can also hand over whole pages of IDs (Cassandra pages, runs the
 * writer's memo knows). The merge then waits once per page, not once per ID: `for await` over
 * single IDs costs several promises each, and a move merges two slices of 30-odd IDs.
 */
export interface PagedIds extends AsyncIterable<bigint> {
  pages(): AsyncIterable<readonly bigint[]>;
}

const isPaged = (s: object): s is PagedIds => typeof (s as Partial<PagedIds>).pages === 'function';

/** IDs `pages` yields, as a PagedIds (its per-ID iteration walks the same pages). */
export function pagedIds(pages: () => AsyncIterable<readonly bigint[]>): PagedIds {
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page;
    },
  };
}

/** Sync variant: `chronological` is any iterable of post IDs in strictly descending order. */
export function mergeGrid(
  overrides: readonly GridEntry[],
  chronological: Iterable<bigint>,
  options: MergeOptions = {},
): GridEntry[] {
  const core = new MergeCursor(overrides, options);
  const out: GridEntry[] = [];
  if (!core.full) {
    for (const id of chronological) {
      core.offer(id, out);
      if (core.full) break; // stop pulling: the rest of the stream is never read
    }
  }
  core.finish(out);
  return out;
}

/**
 * Async streaming variant for a paged source (e.g. Cassandra pages of grid_posts). Entries are
 * yielded as soon as they are known; the source is not pulled again once `limit` is reached, and
 * it is closed (its `return()` runs) when the consumer stops early.
 */
export async function* streamMergedGrid(
  overrides: readonly GridEntry[],
  chronological: AsyncIterable<bigint> | Iterable<bigint>,
  options: MergeOptions = {},
): AsyncGenerator<GridEntry, void, undefined> {
  const core = new MergeCursor(overrides, options);
  const batch: GridEntry[] = [];
  if (!core.full && isPaged(chronological)) {
    for await (const page of chronological.pages()) {
      if (offerAll(core, page, batch)) break;
      yield* batch;
      batch.length = 0;
    }
  } else if (!core.full) {
    for await (const id of chronological) {
      core.offer(id, batch);
      yield* batch;
      batch.length = 0;
      if (core.full) break;
    }
  }
  core.finish(batch);
  yield* batch;
}

/** Offers a page's IDs until the merge is full; true when it is. */
function offerAll(core: MergeCursor, ids: readonly bigint[], out: GridEntry[]): boolean {
  for (const id of ids) {
    core.offer(id, out);
    if (core.full) return true;
  }
  return core.full;
}

/**
 * Async variant collecting into an array (what a page read usually wants). A sync source (an
 * array the writer's memo of grid_posts already holds) is merged synchronously: `for await` would
 * wait a turn of the microtask queue for every ID of it.
 */
export async function mergeGridAsync(
  overrides: readonly GridEntry[],
  chronological: AsyncIterable<bigint> | Iterable<bigint>,
  options: MergeOptions = {},
): Promise<GridEntry[]> {
  if (!(Symbol.asyncIterator in chronological)) return mergeGrid(overrides, chronological, options);
  const core = new MergeCursor(overrides, options);
  const out: GridEntry[] = [];
  // Straight into the array: through streamMergedGrid every entry would cost an await too.
  if (!core.full && isPaged(chronological)) {
    for await (const page of chronological.pages()) if (offerAll(core, page, out)) break;
  } else if (!core.full) {
    for await (const id of chronological) {
      core.offer(id, out);
      if (core.full) break;
    }
  }
  core.finish(out);
  return out;
}

/** Total order used everywhere: positive when a comes before b in display order. */
export function compareDisplay(a: GridPosition, b: GridPosition): number {
  if (a.key !== b.key) return a.key > b.key ? 1 : -1;
  if (a.postId !== b.postId) return a.postId > b.postId ? 1 : -1;
  return 0;
}

/**
 * A post's entry in the order: its override key if `overrides` has one for it, else its own ID
 * (its effective key). Pinned posts get one too (the key they go back to when unpinned).
 */
export function effectiveEntry(overrides: readonly GridEntry[], postId: bigint): GridEntry {
  const o = overrides.find((r) => r.postId === postId);
  return { postId, key: o ? o.key : postId };
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
class MergeCursor {
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

/**
 * The post IDs of an override list, checked sorted once: lists are immutable snapshots that every
 * merge of a page or a move's slice is handed again, so both are kept per list.
 */
const idsOfList = new WeakMap<readonly GridEntry[], ReadonlySet<bigint>>();
function overriddenIds(overrides: readonly GridEntry[]): ReadonlySet<bigint> {
  let ids = idsOfList.get(overrides);
  if (ids) return ids;
  for (let i = 1; i < overrides.length; i++) {
    if (compareDisplay(overrides[i - 1]!, overrides[i]!) <= 0) {
      throw new Error('overrides must be sorted by (key DESC, postId DESC) without duplicates');
    }
  }
  ids = new Set(overrides.map((o) => o.postId));
  idsOfList.set(overrides, ids);
  return ids;
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
