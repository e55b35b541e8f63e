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
 * order and the merge never needs to buffer more than the override array it was given.
 *
 * Worked example (keys are small for readability): overrides [{post 2, key 9}], chronological
 * [8, 5, 2, 1] → 2 is skipped in the stream, so the output is (9,2) (8,8) (5,5) (1,1). With
 * `after = {key: 8, postId: 8}` the output starts at (5,5).
 *
 * One core (`MergeCursor`) holds all the logic; the sync and async front ends only feed it.
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

export interface MergeOptions {
  /** Pinned post IDs: excluded from both inputs (pins are shown separately, first page only). */
  readonly pinned?: Iterable<bigint>;
  /** Start strictly after this position in (key DESC, postId DESC) order. */
  readonly after?: GridPosition;
  /** Stop after this many entries (default: no limit). Must be a non-negative integer. */
  readonly limit?: number;
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
  if (!core.full) {
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

/** Async variant collecting into an array (what a page read usually wants). */
export async function mergeGridAsync(
  overrides: readonly GridEntry[],
  chronological: AsyncIterable<bigint> | Iterable<bigint>,
  options: MergeOptions = {},
): Promise<GridEntry[]> {
  const out: GridEntry[] = [];
  for await (const e of streamMergedGrid(overrides, chronological, options)) out.push(e);
  return out;
}

/** Total order used everywhere: positive when a comes before b in display order. */
export function compareDisplay(a: GridPosition, b: GridPosition): number {
  if (a.key !== b.key) return a.key > b.key ? 1 : -1;
  if (a.postId !== b.postId) return a.postId > b.postId ? 1 : -1;
  return 0;
}

/** True when `e` comes strictly after `pos` in display order (smaller by (key, postId)). */
export const isAfter = (e: GridPosition, pos: GridPosition): boolean => compareDisplay(e, pos) < 0;

/**
 * A post's entry in the order: its override key if `overrides` has one for it, else its own ID
 * (its effective key). Pinned posts get one too (the key they go back to when unpinned).
 */
export function effectiveEntry(overrides: readonly GridEntry[], postId: bigint): GridEntry {
  const o = overrides.find((r) => r.postId === postId);
  return { postId, key: o ? o.key : postId };
}

/**
 * The merge state machine. `offer` takes the next chronological ID and appends whatever can now
 * be emitted (overrides that sort before it, then the ID itself); `finish` flushes the overrides
 * left when the stream ends. Invariant: everything emitted so far sorts before every override at
 * index >= `next` and before every ID not yet offered.
 */
class MergeCursor {
  private readonly overrides: readonly GridEntry[];
  private readonly overridden: Set<bigint>;
  private readonly pinned: Set<bigint>;
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
    for (let i = 1; i < overrides.length; i++) {
      if (compareDisplay(overrides[i - 1]!, overrides[i]!) <= 0) {
        throw new Error('overrides must be sorted by (key DESC, postId DESC) without duplicates');
      }
    }
    this.limit = limit;
    this.after = options.after;
    this.pinned = new Set(options.pinned ?? []);
    // Every override hides its post from the stream, even one that is pinned or before `after`.
    this.overridden = new Set(overrides.map((o) => o.postId));
    this.overrides = overrides.filter(
      (o) => !this.pinned.has(o.postId) && (!this.after || isAfter(o, this.after)),
    );
  }

  get full(): boolean {
    return this.emitted >= this.limit;
  }

  offer(postId: bigint, out: GridEntry[]): void {
    if (this.lastOffered !== undefined && postId >= this.lastOffered) {
      throw new Error(
        `chronological stream must be strictly descending (${postId} after ${this.lastOffered})`,
      );
    }
    this.lastOffered = postId;
    if (this.full || this.overridden.has(postId) || this.pinned.has(postId)) return;
    const entry: GridEntry = { postId, key: postId };
    if (this.after && !isAfter(entry, this.after)) return; // the caller may start the stream early
    while (this.next < this.overrides.length && !this.full) {
      const o = this.overrides[this.next]!;
      if (compareDisplay(o, entry) < 0) break;
      this.push(o, out);
      this.next += 1;
    }
    if (!this.full) this.push(entry, out);
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
