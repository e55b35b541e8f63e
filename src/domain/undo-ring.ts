/**
 * The undo ring: how to undo each of a grid's most recent moves, kept in the override partition's
 * static row and written in the same conditional batch as the move (design §5.1 "undo is a move
 * back"; cql/017_recent_moves.cql, cql/019_undo_buckets.cql). Like the request ring
 * (request-ring.ts) its cells are overwritten in place, so it leaves no tombstones in the
 * partition every read scans.
 *
 * Bucketed by version: a move's entry lives in bucket `undoBucket(version)`, one static cell of
 * UNDO_BUCKET_VERSIONS consecutive versions, and UNDO_BUCKETS cells take turns. A move rewrites
 * only its own bucket (a few entries) rather than the whole ring: every byte of a conditional
 * batch is written three times by Paxos, and a whole ring per move was a third of the node's CPU
 * per move. When a bucket's turn comes round again, what it held (versions UNDO_BUCKETS blocks
 * older) goes.
 *
 * Bounds: the ring holds the moves of at least the grid's last UNDO_RING_VERSIONS versions (and
 * at most UNDO_BUCKETS × UNDO_BUCKET_VERSIONS), each for `ttlMs` (the idempotency retention: a
 * move's replay hands out its move_id that long). A group commit plans several writes on one
 * snapshot, so a group with moves spans at most UNDO_RING_VERSIONS versions (service/write-line/batch.ts):
 * no move of a group pushes out another's entry.
 */

export const UNDO_BUCKET_VERSIONS = 8;
export const UNDO_BUCKETS = 5;
/** Versions whose moves the ring always keeps: all but the oldest bucket, plus one. */
export const UNDO_RING_VERSIONS = UNDO_BUCKET_VERSIONS * (UNDO_BUCKETS - 1) + 1;

const BLOCK = BigInt(UNDO_BUCKET_VERSIONS);
/**
 * The block of versions `version` is in: in numbers while they are exact (a ring of 40 entries is
 * looked at by every push and every batch, and BigInt division allocates), else in BigInt.
 */
function blockOf(version: bigint): number | bigint {
  const n = Number(version); // above 2^53 − 1 it rounds to at least 2^53: then BigInt
  return n <= Number.MAX_SAFE_INTEGER ? Math.floor(n / UNDO_BUCKET_VERSIONS) : version / BLOCK;
}
const bucketOfBlock = (b: number | bigint): number =>
  typeof b === 'number' ? b % UNDO_BUCKETS : Number(b % BigInt(UNDO_BUCKETS));

/** The bucket (static cell, 0 … UNDO_BUCKETS − 1) a move committing `version` is kept in. */
export const undoBucket = (version: bigint): number => bucketOfBlock(blockOf(version));

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
}

const live = (e: UndoEntry, b: UndoRingBounds) => e.at + b.ttlMs > b.now;

/**
 * The ring with `entry` first. Out go: an earlier entry of the same move (a re-plan), expired
 * ones, and what `entry`'s bucket held for an older block of versions (its cell is rewritten).
 */
export function pushUndo(
  ring: readonly UndoEntry[],
  entry: UndoEntry,
  bounds: UndoRingBounds,
): UndoEntry[] {
  const current = blockOf(entry.version);
  const bucket = bucketOfBlock(current);
  const kept: UndoEntry[] = [entry];
  for (const e of ring) {
    if (e.moveId === entry.moveId || !live(e, bounds)) continue;
    const b = blockOf(e.version);
    if (b === current || bucketOfBlock(b) !== bucket) kept.push(e);
  }
  return kept;
}

/**
 * The live entry of `moveId`, if the ring still holds it; the latest one if it holds two (a move
 * whose first attempt timed out and committed, then committed again on a re-plan).
 */
export function findUndo(
  ring: readonly UndoEntry[],
  moveId: string,
  bounds: UndoRingBounds,
): UndoEntry | undefined {
  const id = moveId.toLowerCase();
  let found: UndoEntry | undefined;
  for (const e of ring) {
    if (e.moveId === id && live(e, bounds) && (!found || e.version > found.version)) found = e;
  }
  return found;
}

/** The entries a batch committing versions (from, to] writes, by bucket (cells to rewrite). */
export function bucketsWritten(
  ring: readonly UndoEntry[],
  from: bigint,
  to: bigint,
): Map<number, UndoEntry[]> {
  const touched = new Set<number>();
  for (const e of ring) if (e.version > from && e.version <= to) touched.add(undoBucket(e.version));
  const out = new Map<number, UndoEntry[]>();
  for (const b of [...touched].sort()) out.set(b, []);
  for (const e of ring) out.get(undoBucket(e.version))?.push(e);
  return out;
}
