/**
 * Builds the `Slice` the key engine (src/domain/keys.ts) places posts into: a contiguous run of
 * the grid's merged order around one gap, ASCENDING by (key, postId), with pins and the moved
 * post(s) left out, and widened until the engine stops answering `need_more`.
 *
 * Display order is descending, so "right after anchor A" (just below A on screen) is, in
 * ascending terms, the gap just before A: entries below the gap are the merged order read
 * downward from A (the same stream a page read uses), entries from A upward are read with a small
 * ascending merge of the overrides and `grid_posts` read in reverse clustering order.
 *
 * Example (keys small): display order 90 80 70 60, move X after 80 → below = [70, 60] (read
 * downward), above = [80, 90] (read upward), ascending slice [60, 70, 80, 90] with gap 2.
 */
import { DomainError } from '../domain/errors.js';
import { MAX_ID } from '../domain/ids.js';
import { placeMany, placeOne, type Keyed, type RelabelPolicy, type Slice } from '../domain/keys.js';
import type { GridEntry } from '../domain/merge.js';
import { compareDisplay } from '../domain/merge.js';
import type { CassandraGridReader } from './grid-reader.js';

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

export async function buildSlice(
  reader: CassandraGridReader,
  req: GapRequest,
  width: number,
): Promise<Slice> {
  const below = await reader.entries(req.profileId, req.overrides, {
    ...(req.anchor ? { after: req.anchor } : {}),
    limit: width + 1,
    exclude: req.exclude,
  });
  const above = req.anchor ? await entriesUpFrom(reader, req, req.anchor, width + 1) : [];
  const lower = below.slice(0, width).reverse();
  const upper = above.slice(0, width);
  return {
    entries: [...lower, ...upper].map(toKeyed),
    gap: lower.length,
    reachesBottom: below.length <= width,
    reachesTop: above.length <= width,
  };
}

/**
 * Places `postIds` (ascending: lowest first) into the gap, widening the slice until the key
 * engine can answer. Returns the rows to write (placed posts and relabelled neighbours) and the
 * slice they were placed in (callers may read more out of it without another query).
 */
export async function placeInGap(
  reader: CassandraGridReader,
  req: GapRequest,
  postIds: readonly bigint[],
  ceiling: bigint,
  policy?: RelabelPolicy,
): Promise<{ writes: Keyed[]; relabelled: number; slice: Slice }> {
  for (let width = INITIAL_SLICE_WIDTH; ; width *= 4) {
    const slice = await buildSlice(reader, req, width);
    const bound = ceilingAbove(slice, ceiling);
    const placement =
      postIds.length === 1
        ? placeOne(slice, postIds[0]!, bound, policy)
        : placeMany(slice, postIds, bound, policy);
    if (placement.kind === 'placed') {
      return { writes: placement.writes, relabelled: placement.relabelled, slice };
    }
    if (slice.reachesBottom && slice.reachesTop) {
      // The whole grid was offered; the engine should have thrown itself. Never loop forever.
      throw new DomainError('key_space_exhausted', 'no room for a key even across the whole grid');
    }
  }
}

/**
 * Keys must stay below the ceiling, and every key already in the slice must be below it too. A
 * fresh ID normally is (§4.3), but not on a process whose clock lags the one that wrote the top
 * key (or created the newest post). Then the best available ceiling is just above the highest
 * key: the excess over real IDs stays within `SKEW_HEADROOM`, so posts created on a correct
 * clock a few milliseconds later still land on top without an override.
 */
export const SKEW_HEADROOM = 1n << 26n; // ~8 ms of ID space

function ceilingAbove(slice: Slice, fresh: bigint): bigint {
  const top = slice.entries[slice.entries.length - 1];
  if (!top || top.key < fresh - 1n) return fresh;
  const raised = top.key + SKEW_HEADROOM;
  return raised > MAX_ID ? MAX_ID : raised;
}

/** Up to `limit` entries from `anchor` (inclusive) upward, ascending by (key, postId). */
async function entriesUpFrom(
  reader: CassandraGridReader,
  req: GapRequest,
  anchor: GridEntry,
  limit: number,
): Promise<GridEntry[]> {
  const overridden = new Set(req.overrides.map((o) => o.postId));
  // Overrides at or above the anchor, ascending.
  const ups = req.overrides
    .filter((o) => !req.exclude.has(o.postId) && compareDisplay(o, anchor) >= 0)
    .reverse();
  const out: GridEntry[] = [];
  let i = 0;
  const stream = reader.chronologicalUp(req.profileId, anchor.key, Math.min(limit + 1, 500));
  try {
    for await (const id of stream) {
      if (out.length >= limit) break;
      if (overridden.has(id) || req.exclude.has(id)) continue;
      const e: GridEntry = { postId: id, key: id };
      if (compareDisplay(e, anchor) < 0) continue;
      while (i < ups.length && compareDisplay(ups[i]!, e) < 0 && out.length < limit)
        out.push(ups[i++]!);
      if (out.length < limit) out.push(e);
    }
  } finally {
    await stream.return(undefined);
  }
  while (i < ups.length && out.length < limit) out.push(ups[i++]!);
  return out;
}

const toKeyed = (e: GridEntry): Keyed => ({ postId: e.postId, key: e.key });

/**
 * The entry right above `me` in display order, found in a slice that leaves `me` out: null when
 * nothing is above it, undefined when the slice does not cover `me`'s position (the answer lies
 * beyond what was read). Slices are contiguous, so the first slice entry above `me` is the
 * closest one in the whole grid when some slice entry lies below `me` or the slice reaches the
 * bottom.
 */
export function entryAboveIn(slice: Slice, me: GridEntry): GridEntry | null | undefined {
  const i = slice.entries.findIndex((e) => compareDisplay(e, me) > 0);
  if (i === -1) {
    const wholeTop = slice.reachesTop && (slice.entries.length > 0 || slice.reachesBottom);
    return wholeTop ? null : undefined;
  }
  if (i === 0 && !slice.reachesBottom) return undefined;
  const e = slice.entries[i]!;
  return { postId: e.postId, key: e.key };
}
