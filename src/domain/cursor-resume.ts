/**
 * Where the next page starts when the grid changed since the cursor was issued (design §6.1).
 *
 * A cursor holds the last row's (key, postId) at the version it was read. A relabel may since
 * have rewritten that post's key (and its neighbours') while keeping their relative order; then
 * "after the post's CURRENT key" is the right continuation and "after the old key" could skip or
 * repeat rows. But if the post itself changed position (a move, an unarchive, a reset: every
 * such write sets moved_version; relabels never do) or its row is gone, its current key says
 * nothing about where the reader was, so the key in the cursor is used.
 *
 * Example: cursor (key 900, post 7) at v10. A relabel at v11 rewrote post 7 to key 950 and its
 * neighbours around it: moved_version of post 7 is still ≤ 10 → resume after (950, 7). Had post
 * 7 been moved at v12 (moved_version 12 > 10) → resume after (900, 7).
 */
import { compareGridVersions, type GridVersion } from './grid-version.js';
import type { GridPosition } from './merge.js';

export interface CursorState extends GridVersion {
  readonly key: bigint;
  readonly postId: bigint;
}

export interface OverrideLike {
  readonly postId: bigint;
  readonly key: bigint;
  /** Version of the last position change that was not a relabel; undefined = never. */
  readonly movedVersion: bigint | undefined;
}

export function resumePosition(
  cursor: CursorState,
  current: GridVersion,
  overrides: readonly OverrideLike[],
): GridPosition {
  const fromCursor = { key: cursor.key, postId: cursor.postId };
  if (compareGridVersions(cursor, current) === 0) return fromCursor;
  // Another generation: versions are not comparable, moved_version cannot be trusted.
  if (cursor.generation !== current.generation) return fromCursor;
  const row = overrides.find((o) => o.postId === cursor.postId);
  if (!row) return fromCursor;
  if (row.movedVersion !== undefined && row.movedVersion > cursor.version) return fromCursor;
  return { key: row.key, postId: row.postId };
}
