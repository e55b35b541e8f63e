/**
 * The pure half of `regrid import` (service/import/): how a source of existing posts is cut into
 * work, what a source row must hold, and what a checkpoint remembers.
 *
 * - A CQL source is scanned by slices of the Murmur3 token ring, each independent and retried
 *   whole: a checkpoint names the slices that finished, so a killed import resumes with the
 *   others and redoes at most the slices that were running (every chunk is idempotent).
 * - Rows are grouped into chunks of one profile's posts (consecutive rows of one profile, up to
 *   a bound): one chunk is one compare-and-set on that profile's grid.
 * - A row becomes a post by the same rule as a registered post (ids.ts registeredCreatedAt).
 */
import { DomainError } from './errors.js';
import { registeredCreatedAt } from './ids.js';
import type { Post } from './post.js';

export const MIN_TOKEN = -(2n ** 63n);
export const MAX_TOKEN = 2n ** 63n - 1n;

/** One slice of the token ring: `token(pk) >= lo AND token(pk) <= hi`. */
export interface TokenSlice {
  readonly index: number;
  readonly lo: bigint;
  readonly hi: bigint;
}

/** The whole Murmur3 ring in `n` slices of (almost) equal width, in token order, no gaps. */
export function tokenSlices(n: number): TokenSlice[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`slices must be >= 1: ${n}`);
  const width = (MAX_TOKEN - MIN_TOKEN + 1n) / BigInt(n);
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    lo: MIN_TOKEN + width * BigInt(i),
    hi: i === n - 1 ? MAX_TOKEN : MIN_TOKEN + width * BigInt(i + 1) - 1n,
  }));
}

/** A source row as read (CQL or NDJSON), before validation. */
export interface SourceRow {
  readonly profileId: bigint;
  readonly postId: bigint;
  readonly createdAt?: Date | undefined;
  readonly caption?: string | undefined;
  readonly mediaUrl?: string | undefined;
}

/** The post a row stands for, or why it cannot be imported (counted, never written). */
export function postOfRow(row: SourceRow, nowMs: number = Date.now()): Post | { error: string } {
  try {
    return {
      postId: row.postId,
      authorId: row.profileId,
      caption: row.caption,
      mediaUrl: row.mediaUrl,
      createdAt: registeredCreatedAt(row.postId, row.createdAt, nowMs),
      collaborators: [],
    };
  } catch (err) {
    if (err instanceof DomainError) return { error: `post ${row.postId}: ${err.message}` };
    throw err;
  }
}

export interface Chunk {
  readonly profileId: bigint;
  readonly rows: readonly SourceRow[];
}

/** Consecutive rows of one profile, at most `max` per chunk, in the order they came. */
export async function* chunksOf(
  rows: AsyncIterable<SourceRow>,
  max: number,
): AsyncGenerator<Chunk> {
  let current: SourceRow[] = [];
  for await (const row of rows) {
    const same = current.length > 0 && current[0]!.profileId === row.profileId;
    if (current.length > 0 && (!same || current.length >= max)) {
      yield { profileId: current[0]!.profileId, rows: current };
      current = [];
    }
    current.push(row);
  }
  if (current.length > 0) yield { profileId: current[0]!.profileId, rows: current };
}

/** What a checkpoint file holds: the source it belongs to and the slices that finished. */
export interface Checkpoint {
  readonly source: string;
  readonly slices: number;
  readonly done: readonly number[];
}

export function encodeCheckpoint(c: Checkpoint): string {
  return JSON.stringify({
    source: c.source,
    slices: c.slices,
    done: [...c.done].sort((a, b) => a - b),
  });
}

/** The checkpoint, or an error when it belongs to another source or slicing (never mixed). */
export function decodeCheckpoint(text: string, source: string, slices: number): Checkpoint {
  const raw = JSON.parse(text) as Partial<Checkpoint>;
  if (raw.source !== source || raw.slices !== slices || !Array.isArray(raw.done)) {
    throw new Error(
      `checkpoint is for ${String(raw.source)} in ${String(raw.slices)} slices, not ${source} in ${slices}`,
    );
  }
  return { source, slices, done: raw.done.filter((i) => Number.isInteger(i)) };
}
