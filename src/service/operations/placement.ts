/**
 * Placing posts into a gap of a grid's merged order: the placement every operation that gives a
 * post a key shares (the move, move.ts; a new post above an override, create.ts; a restored key
 * that is taken, restore-key.ts). `placeAfter` is the entry; below it, the reads of the `Slice`
 * it needs, the I/O half (the pure half, slice assembly, ceiling and placement, is
 * src/domain/keys.ts). The slice is a contiguous run around the gap, ascending by
 * (key, postId), with pins and the placed post(s) left out, widened until the key engine stops
 * answering `need_more`.
 *
 * Where the entries come from (overrides: the snapshot the write line already read, no query
 * here), always through the plan context's rows port (PlanContext.rows):
 *   - below the gap: the merged order read downward from the anchor (`entries`, the same
 *     stream a page read uses: grid_posts `post_id <= anchor key` DESC, merged with the overrides);
 *   - from the anchor upward: grid_posts `post_id >= anchor key` ASC (`chronologicalUp`),
 *     merged with the overrides at or above the anchor by the same merge walking up.
 * Both sides are read at once. Each asks for width + 1 entries (the extra one tells whether the
 * grid's end was reached); width starts at INITIAL_SLICE_WIDTH and is multiplied by 4 on each
 * `need_more`, re-reading both sides. A move to the top (anchor null) reads only the side below.
 */
import { effectiveEntry, mergeGrid, type GridEntry } from '../../domain/merge.js';
import {
  entryAboveIn,
  placeInSlice,
  sliceAround,
  type Keyed,
  type Slice,
} from '../../domain/keys.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { GridRowsRead } from '../write-line/write-line.js';

/** Where a placement reads the order from: the plan context's rows (PlanContext.rows). */
type OrderRead = Pick<GridRowsRead, 'entries' | 'chronologicalUp'>;

/** What placing a post needs (the move's, the create's and the restore's placement). */
export interface PlacePorts {
  readonly reader: CassandraGridReader;
  readonly nextId: () => bigint;
  /** Rows one move's write may carry (MOVE_ROW_CAP; domain/keys.ts, placeCapped); unset = no cap. */
  readonly rowCap?: number | undefined;
}

/** Places `postId` right after `anchor` (null = top) in the snapshot's order, read from `rows`. */
export function placeAfter(
  ports: PlacePorts,
  rows: OrderRead,
  snapshot: OverridesSnapshot,
  profileId: bigint,
  postId: bigint,
  anchor: GridEntry | null,
  rowCap?: number,
) {
  return placeInGap(
    rows,
    {
      profileId,
      overrides: snapshot.overrides,
      exclude: new Set([...snapshot.head.pins, postId]),
      anchor,
    },
    [postId],
    ports.nextId(), // a freshly issued ID: keys stay below every ID issued later (§4.3)
    rowCap,
  );
}

export interface GapRequest {
  readonly profileId: bigint;
  /** All overrides, display order (key DESC, postId DESC). */
  readonly overrides: readonly GridEntry[];
  /** Pins and the post(s) being placed: not part of the order the slice describes. */
  readonly exclude: ReadonlySet<bigint>;
  /** The entry the placed post(s) go right after in display order; null = the top. */
  readonly anchor: GridEntry | null;
}

/** Entries read on each side of the gap the first time; multiplied by 4 on `need_more`. */
export const INITIAL_SLICE_WIDTH = 32;

export async function readSlice(reader: OrderRead, req: GapRequest, width: number): Promise<Slice> {
  // Both sides at once: they are independent reads of the same snapshot's order.
  const [below, above] = await Promise.all([
    reader.entries(req.profileId, req.overrides, {
      ...(req.anchor ? { after: req.anchor } : {}),
      limit: width + 1,
      exclude: req.exclude,
    }),
    req.anchor ? entriesUpFrom(reader, req, req.anchor, width + 1) : Promise.resolve([]),
  ]);
  return sliceAround(below, above, width);
}

/** Where placed posts go: their rows, or (under a row cap) one step of a larger relabel. */
export type GapPlacement =
  | { kind: 'placed'; writes: Keyed[]; relabelled: number; slice: Slice }
  | { kind: 'relabel_step'; writes: Keyed[]; slice: Slice };

/**
 * Places `postIds` (ascending: lowest first) into the gap, widening the slice until the key
 * engine can answer. Returns the rows to write (placed posts and relabelled neighbours) and the
 * slice they were placed in (callers may read more out of it without another query). With a
 * `rowCap` (moves, MOVE_ROW_CAP), a placement whose relabel would write more rows than the cap
 * comes back as one `relabel_step` of at most that many rows instead (domain/keys.ts, placeCapped):
 * the caller commits it in a write of its own, then places again. Without one, always `placed`.
 */
export async function placeInGap(
  reader: OrderRead,
  req: GapRequest,
  postIds: readonly bigint[],
  ceiling: bigint,
  rowCap?: number,
): Promise<GapPlacement> {
  for (let width = INITIAL_SLICE_WIDTH; ; width *= 4) {
    const slice = await readSlice(reader, req, width);
    const placement = placeInSlice(slice, postIds, ceiling, rowCap);
    if (placement.kind !== 'need_more') return { ...placement, slice };
  }
}

/**
 * The unpinned entry right above `postId` in display order (null: it is at the top), for a post
 * whose old position lies outside the slice a move read (the undo record, undo.ts): grid_posts
 * streamed upward from its effective key, 16 IDs a page, merged with the snapshot's overrides
 * until the first entry above it.
 */
export async function readEntryAbove(
  reader: OrderRead,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  postId: bigint,
): Promise<GridEntry | null> {
  const { overrides } = snapshot;
  const me = effectiveEntry(overrides, postId);
  const exclude = new Set([...snapshot.head.pins, postId]);
  const above = await entriesUpFrom(reader, { profileId, overrides, exclude }, me, 1, 16);
  // The run of the order from `me` upward: `me`, then the entry right above it if there is one.
  // It starts at `me`, so it covers `me`'s position and the answer is never undefined.
  const run = { entries: [me, ...above], reachesBottom: false, reachesTop: above.length === 0 };
  return entryAboveIn(run, me) ?? null;
}

/**
 * Up to `limit` entries from `anchor` (inclusive) upward, ascending by (key, postId): the merge
 * walking up (`direction: 'up'`), so a skipped row releases the overrides below it and the read
 * stops at the last entry's key, however many of the rows on the way are overridden.
 */
function entriesUpFrom(
  reader: OrderRead,
  req: Omit<GapRequest, 'anchor'>,
  anchor: GridEntry,
  limit: number,
  pageSize = Math.min(limit + 1, 500),
): Promise<GridEntry[]> {
  // Strictly above (key, postId - 1) is at or above the anchor: post IDs are integers.
  const below = { key: anchor.key, postId: anchor.postId - 1n };
  return mergeGrid(req.overrides, reader.chronologicalUp(req.profileId, anchor.key, pageSize), {
    direction: 'up',
    after: below,
    pinned: req.exclude,
    limit,
  });
}
