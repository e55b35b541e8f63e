/**
 * The stored form of the undo ring (domain/undo-ring.ts): one blob static cell per bucket,
 * `recent_moves` for bucket 0 and `recent_moves_<b>` for the others (older releases kept the whole
 * ring in `recent_moves`; it still reads, as part of the union). Each cell: a format byte, then
 * 61 bytes per entry — move id (16), post id (8), flags (1: bit 0 prevKey
 * set, bit 1 prevAfter set), prevKey (8), prevAfter (8), version (8), relabelled (int32), at
 * (float64 ms). Fixed-size and BigInt-free to parse, so the writer's snapshot stays cheap.
 */
import { UNDO_BUCKETS, type UndoEntry } from '../domain/undo-ring.js';

const FORMAT = 1;
const ENTRY = 61;

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');
const uuidOf = (b: Buffer, at: number) => {
  const h = b.toString('hex', at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

function entryBytes(e: UndoEntry): Buffer {
  const out = Buffer.allocUnsafe(ENTRY);
  uuidBytes(e.moveId).copy(out, 0);
  out.writeBigInt64BE(e.postId, 16);
  out.writeUInt8((e.prevKey !== undefined ? 1 : 0) | (e.prevAfter !== undefined ? 2 : 0), 24);
  out.writeBigInt64BE(e.prevKey ?? 0n, 25);
  out.writeBigInt64BE(e.prevAfter ?? 0n, 33);
  out.writeBigInt64BE(e.version, 41);
  out.writeInt32BE(e.relabelled, 49);
  out.writeDoubleBE(e.at, 53);
  return out;
}

export function encodeUndoRing(ring: readonly UndoEntry[]): Buffer {
  const out = Buffer.allocUnsafe(1 + ring.length * ENTRY);
  out.writeUInt8(FORMAT, 0);
  ring.forEach((e, i) => entryBytes(e).copy(out, 1 + i * ENTRY));
  return out;
}

/** The static column of each bucket. */
export const UNDO_COLUMNS: readonly string[] = Array.from({ length: UNDO_BUCKETS }, (_, b) =>
  b === 0 ? 'recent_moves' : `recent_moves_${b}`,
);

/** The ring: the union of the bucket cells (`cells[b]` is bucket b's), newest version first. */
export function decodeUndoBuckets(cells: readonly unknown[]): UndoEntry[] {
  const ring = cells.flatMap((c) => decodeUndoRing(c));
  return ring.length > 1 ? ring.sort((a, b) => (a.version < b.version ? 1 : -1)) : ring;
}

/** Tolerates a missing cell or an unknown format (an empty ring: undo then finds nothing). */
export function decodeUndoRing(value: unknown): UndoEntry[] {
  if (!Buffer.isBuffer(value) || value.length < 1 || value.readUInt8(0) !== FORMAT) return [];
  const out: UndoEntry[] = [];
  for (let o = 1; o + ENTRY <= value.length; o += ENTRY) {
    const flags = value.readUInt8(o + 24);
    out.push({
      moveId: uuidOf(value, o),
      postId: value.readBigInt64BE(o + 16),
      prevKey: flags & 1 ? value.readBigInt64BE(o + 25) : undefined,
      prevAfter: flags & 2 ? value.readBigInt64BE(o + 33) : undefined,
      version: value.readBigInt64BE(o + 41),
      relabelled: value.readInt32BE(o + 49),
      at: value.readDoubleBE(o + 53),
    });
  }
  return out;
}
