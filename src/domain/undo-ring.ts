/**
 * The undo ring: how to undo each of a grid's most recent moves, kept in one static cell of the
 * override partition and rewritten in the same conditional batch as the move (design §5.1 "undo
 * is a move back"; cql/017_recent_moves.cql). Like the request ring (request-ring.ts) it is one
 * value overwritten in place, so it leaves no tombstones in the partition every read scans.
 *
 * Bounds: UNDO_RING_SIZE moves per grid, each for `ttlMs` (the idempotency retention: a move's
 * replay hands out its move_id that long). A group commit plans several moves on one snapshot,
 * so the ring is at least as large as the largest group.
 */

export const UNDO_RING_SIZE = 32;

export interface UndoEntry {
  /** The move's id (a UUID, lower-case canonical form). */
  readonly moveId: string;
  readonly postId: bigint;
  /** The post's override key before the move (undefined: it had none). */
  readonly prevKey: bigint | undefined;
  /** The unpinned post right above it before the move (undefined: it was at the top). */
  readonly prevAfter: bigint | undefined;
  /** The version the move commits. */
  readonly version: bigint;
  /** Rows the move rewrote besides the moved post (UNKNOWN_RELABELS: never an exact restore). */
  readonly relabelled: number;
  /** Planning time, ms since the epoch. */
  readonly at: number;
}

export interface UndoRingBounds {
  readonly now: number;
  readonly ttlMs: number;
  readonly size?: number;
}

const live = (e: UndoEntry, b: UndoRingBounds) => e.at + b.ttlMs > b.now;

/** The ring with `entry` first: an earlier entry of the same move (a re-plan) and expired ones go. */
export function pushUndo(
  ring: readonly UndoEntry[],
  entry: UndoEntry,
  bounds: UndoRingBounds,
): UndoEntry[] {
  const kept = ring.filter((e) => e.moveId !== entry.moveId && live(e, bounds));
  return [entry, ...kept].slice(0, bounds.size ?? UNDO_RING_SIZE);
}

/** The live entry of `moveId`, if the ring still holds it. */
export function findUndo(
  ring: readonly UndoEntry[],
  moveId: string,
  bounds: UndoRingBounds,
): UndoEntry | undefined {
  const id = moveId.toLowerCase();
  return ring.find((e) => e.moveId === id && live(e, bounds));
}
