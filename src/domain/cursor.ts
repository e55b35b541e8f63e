/**
 * Opaque, signed page cursors (keyset pagination, design article §6.1).
 *
 * A cursor carries the last row of the previous page (its effective key and post ID) and the grid
 * version that page was read at, so the next read can flag "grid changed" and re-look-up the
 * cursor post's current key. Clients must not forge positions, so the token is MAC'd.
 *
 * Token = base64url( 0x02 | JSON payload | HMAC-SHA256(secret, CONTEXT | profile | 0x02 | JSON) )
 * - 0x02 is the format byte, so a later format can be told apart (0x01 tokens were not bound to
 *   a profile; they no longer verify and get 'bad_cursor', like any stale token).
 * - The JSON holds bigints as decimal strings: {"k","p","v","g"} = key, postId, version, generation.
 *   A cursor issued while overrides were not read (the `reads.overrides` kill switch) also carries
 *   "m":"c": its key is a chronological position, which the other mode must not take for an
 *   effective key (service/read/read-page.ts resumes it by post instead).
 * - CONTEXT separates cursor MACs from any other HMAC made with the same secret.
 * - profile = the grid's profile ID as 8 bytes big-endian. It is signed but not carried: a cursor
 *   only verifies for the grid that issued it, so a position read on one profile can never be
 *   replayed on another (the caller names the grid it is reading, and that is what is checked).
 * - Decoding accepts only the canonical base64url spelling (no padding, no stray trailing bits),
 *   so every change to the token text changes the bytes and fails the MAC.
 * Any failure is DomainError('bad_cursor'); the message names the failed check (nothing secret).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from './errors.js';
import { MAX_ID } from './ids.js';
import type { GridVersion } from './grid-version.js';

export { compareGridVersions, type GridVersion } from './grid-version.js';

export interface Cursor extends GridVersion {
  readonly key: bigint; // effective key of the last row served, in (0, 2^63)
  readonly postId: bigint; // that row's post ID, in (0, 2^63)
  readonly version: bigint; // grid version the page was read at, >= 0
  readonly generation: bigint; // grid generation, >= 1
  readonly chronological?: boolean; // issued by a read that ignored the overrides
}

export type CursorSecret = string | Uint8Array;

const FORMAT = 0x02;
const MAC_BYTES = 32;
const CONTEXT = Buffer.from('regrid/cursor\0', 'utf8');
const MAX_TOKEN_CHARS = 512; // a real token is ~150 chars; refuse to decode junk of any size
const MIN_SECRET_BYTES = 16; // same floor as CURSOR_SECRET in src/config/config.ts
const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;

/** Signs `cursor` for the grid of `profileId`; only `decodeCursor(…, profileId)` accepts it. */
export function encodeCursor(cursor: Cursor, secret: CursorSecret, profileId: bigint): string {
  const profile = profileBytes(profileId);
  const problem = invalidField(cursor);
  if (problem) throw new RangeError(`cannot encode cursor: ${problem}`);
  const json = JSON.stringify({
    k: cursor.key.toString(),
    p: cursor.postId.toString(),
    v: cursor.version.toString(),
    g: cursor.generation.toString(),
    ...(cursor.chronological ? { m: 'c' } : {}),
  });
  const body = Buffer.concat([Buffer.of(FORMAT), Buffer.from(json, 'utf8')]);
  return Buffer.concat([body, mac(body, secret, profile)]).toString('base64url');
}

/** Verifies a token issued for the grid of `profileId` (any other grid's token is 'bad_cursor'). */
export function decodeCursor(token: string, secret: CursorSecret, profileId: bigint): Cursor {
  // A misconfigured secret or an invalid profile ID is a server bug, not a bad cursor.
  const key = secretBytes(secret);
  const profile = profileBytes(profileId);
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_CHARS) {
    throw bad('cursor has an invalid length');
  }
  const raw = Buffer.from(token, 'base64url');
  if (raw.toString('base64url') !== token) throw bad('cursor is not canonical base64url');
  if (raw.length < 1 + MAC_BYTES + 2) throw bad('cursor is truncated');
  const body = raw.subarray(0, raw.length - MAC_BYTES);
  const given = raw.subarray(raw.length - MAC_BYTES);
  // Constant-time: the comparison must not reveal how many leading MAC bytes were right.
  if (!timingSafeEqual(given, mac(body, key, profile))) {
    throw bad('cursor signature does not match (altered, or issued for another grid)');
  }
  // Past this point the bytes are ours, so the checks below guard against our own format drift.
  if (body[0] !== FORMAT) throw bad('unknown cursor format');
  let payload: unknown;
  try {
    payload = JSON.parse(body.subarray(1).toString('utf8'));
  } catch {
    throw bad('cursor payload is not JSON');
  }
  const cursor = fromPayload(payload);
  const problem = cursor ? invalidField(cursor) : 'cursor payload has the wrong shape';
  if (!cursor || problem) throw bad(problem ?? 'cursor payload has the wrong shape');
  return cursor;
}

function fromPayload(payload: unknown): Cursor | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const o = payload as Record<string, unknown>;
  const chronological = o.m === 'c';
  if (Object.keys(o).length !== (chronological ? 5 : 4)) return undefined;
  const fields = [o.k, o.p, o.v, o.g];
  if (!fields.every((f): f is string => typeof f === 'string' && DECIMAL.test(f))) return undefined;
  const [key, postId, version, generation] = fields.map(BigInt) as [bigint, bigint, bigint, bigint];
  return { key, postId, version, generation, ...(chronological ? { chronological } : {}) };
}

/** Describes the first out-of-range field, or returns undefined when the cursor is valid. */
function invalidField(c: Cursor): string | undefined {
  const all = [c.key, c.postId, c.version, c.generation];
  if (!all.every((x) => typeof x === 'bigint')) return 'fields must be bigints';
  if (c.key <= 0n || c.key > MAX_ID) return 'key out of range';
  if (c.postId <= 0n || c.postId > MAX_ID) return 'postId out of range';
  if (c.version < 0n || c.version > MAX_ID) return 'version out of range';
  if (c.generation < 1n || c.generation > MAX_ID) return 'generation out of range';
  return undefined;
}

function mac(body: Uint8Array, secret: CursorSecret, profile: Buffer): Buffer {
  return createHmac('sha256', secretBytes(secret))
    .update(CONTEXT)
    .update(profile)
    .update(body)
    .digest();
}

/** Fixed width, so no two (profile, payload) pairs can produce the same MAC input. */
function profileBytes(profileId: bigint): Buffer {
  if (typeof profileId !== 'bigint' || profileId <= 0n || profileId > MAX_ID) {
    throw new RangeError('cursor profile ID out of range');
  }
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(profileId);
  return b;
}

function secretBytes(secret: CursorSecret): Buffer {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new RangeError(`cursor secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  return bytes;
}

const bad = (message: string) => new DomainError('bad_cursor', message);
