/**
 * Pure: the part of a cached first-page order (its first entries of one state) a page needs, if
 * the order covers it. A cursor page is served only when the cursor was issued at the cached
 * state, where its position needs no re-lookup.
 */
import type { CachedOrder } from './grid-source.js';
import { compareGridVersions, type GridVersion } from './grid-version.js';
import { compareDisplay, type GridEntry, type GridPosition } from './merge.js';

export function sliceCachedOrder(
  order: CachedOrder,
  cursorState: GridVersion | undefined,
  after: GridPosition | undefined,
  n: number,
): GridEntry[] | undefined {
  let rest: readonly GridEntry[] = order.entries;
  if (after) {
    if (!cursorState || compareGridVersions(cursorState, order) !== 0) return undefined;
    const last = order.entries[order.entries.length - 1];
    // The cursor must sit inside the cached prefix, else the rows after it are not cached.
    if (last && compareDisplay(after, last) < 0) return order.complete ? [] : undefined;
    rest = order.entries.filter((e) => compareDisplay(e, after) < 0);
  }
  if (rest.length < n && !order.complete) return undefined;
  return rest.slice(0, n);
}
