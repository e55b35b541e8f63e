/**
 * The stored form of the change log (domain/change-log.ts): the static map `change_log`
 * (cql/022_change_log.cql), slot → one record as a blob: a format byte, version (int64),
 * generation (int64), at (float64 ms), kind (uint8, its index in CHANGE_KINDS), the number of
 * posts (uint32), then each post ID (int64). Writing one slot is an element write of the map: a
 * plain cell, overwritten in place, never a tombstone.
 */
import { CHANGE_KINDS, changeSlot, type ChangeRecord } from '../domain/change-log.js';

const FORMAT = 1;
const HEAD = 1 + 8 + 8 + 8 + 1 + 4;

export function encodeChange(r: ChangeRecord): Buffer {
  const out = Buffer.allocUnsafe(HEAD + 8 * r.postIds.length);
  out.writeUInt8(FORMAT, 0);
  out.writeBigInt64BE(r.version, 1);
  out.writeBigInt64BE(r.generation, 9);
  out.writeDoubleBE(r.at, 17);
  out.writeUInt8(CHANGE_KINDS.indexOf(r.kind), 25);
  out.writeUInt32BE(r.postIds.length, 26);
  r.postIds.forEach((id, i) => out.writeBigInt64BE(id, HEAD + 8 * i));
  return out;
}

/** Undefined for a cell this release cannot read (an unknown format or kind). */
export function decodeChange(value: unknown): ChangeRecord | undefined {
  if (!Buffer.isBuffer(value) || value.length < HEAD || value.readUInt8(0) !== FORMAT) return;
  const kind = CHANGE_KINDS[value.readUInt8(25)];
  const n = value.readUInt32BE(26);
  if (kind === undefined || value.length < HEAD + 8 * n) return;
  const postIds: bigint[] = [];
  for (let i = 0; i < n; i++) postIds.push(value.readBigInt64BE(HEAD + 8 * i));
  return {
    version: value.readBigInt64BE(1),
    generation: value.readBigInt64BE(9),
    at: value.readDoubleBE(17),
    kind,
    postIds,
  };
}

/** Every record a stored map holds (the driver reads a map<int, blob> as an object). */
export function decodeChangeLog(value: unknown): ChangeRecord[] {
  if (value === null || typeof value !== 'object') return [];
  const cells = value instanceof Map ? [...value.values()] : Object.values(value);
  return cells.flatMap((c) => decodeChange(c) ?? []);
}

/** One statement of the batch (grid-mutation.ts's CqlStatement, which imports this module). */
interface SlotWrite {
  readonly query: string;
  readonly params: unknown[];
}

const SET_CHANGE = 'UPDATE grid_overrides SET change_log[?] = ? WHERE profile_id = ?';

/**
 * The batch statements for the records of the versions (expected, next] it commits: one slot
 * each. `records` may hold earlier ones too (a group's list as it grew); they are left out.
 */
export function changeStatements(
  profileId: bigint,
  records: readonly ChangeRecord[],
  slots: number,
  expected: bigint,
  next: bigint,
): SlotWrite[] {
  const out: SlotWrite[] = [];
  for (const r of records) {
    if (r.version <= expected || r.version > next) continue;
    out.push({
      query: SET_CHANGE,
      params: [changeSlot(r.version, slots), encodeChange(r), profileId],
    });
  }
  return out;
}
