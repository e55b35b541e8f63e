/**
 * Encodings of cache values. Whatever Redis returns is parsed defensively: a value that does not
 * decode is treated as a miss (and overwritten by the next fill), never trusted.
 *
 * - summary and first-page order: small JSON with IDs as decimal strings;
 * - override lists (up to tens of thousands of rows): packed signed 64-bit big-endian triples
 *   (post ID, key, moved version or -1), decoded without a JSON parse;
 * - post bodies: JSON.
 *
 * The checks are hand-written rather than zod schemas: a cache hit decodes one order and a page
 * of bodies, and in profiles of the hit path zod's parse was ~15% of its CPU. Each decoder checks
 * every field it returns and turns any surprise into `undefined`.
 */
import type { GridEntry } from '../domain/merge.js';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import type { Post as PostBody } from '../domain/post.js';

/** Thrown inside decoders only; each public decoder catches it and answers `undefined`. */
const BAD = new Error('malformed cache value');
const ID = /^-?[0-9]{1,20}$/;

function id(x: unknown): bigint {
  if (typeof x !== 'string' || !ID.test(x)) throw BAD;
  return BigInt(x);
}

function idList(x: unknown, max: number): bigint[] {
  if (!Array.isArray(x) || x.length > max) throw BAD;
  return x.map(id);
}

function object(raw: string): Record<string, unknown> {
  const value: unknown = JSON.parse(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw BAD;
  return value as Record<string, unknown>;
}

function optionalString(x: unknown): string | undefined {
  if (x === undefined) return undefined;
  if (typeof x !== 'string') throw BAD;
  return x;
}

/** Runs a decoder; malformed input (bad JSON, wrong shapes) becomes a miss. */
function attempt<T>(raw: string | null | undefined, decode: (raw: string) => T): T | undefined {
  if (raw == null) return undefined;
  try {
    return decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * The profile summary readers consult first: the grid head plus the post count (a decimal
 * string in the JSON, like every 64-bit value) and the last membership write's version (`m`:
 * what a later page compares its rows against, domain/grid-head.ts `sameMembership`). `k` in
 * the JSON names the order entry of that state, so the hit path can fetch both in one script call.
 */
export interface Summary extends GridHead {
  readonly postCount: bigint | undefined;
}

export const encodeSummary = (s: Summary, orderKey: string): string =>
  JSON.stringify({
    g: String(s.generation),
    v: String(s.version),
    p: s.pins.map(String),
    n: s.postCount === undefined ? undefined : String(s.postCount),
    m: s.membershipVersion === undefined ? undefined : String(s.membershipVersion),
    k: orderKey,
  });

export function decodeSummary(raw: string | null | undefined): Summary | undefined {
  return attempt(raw, (text) => {
    const o = object(text);
    if (typeof o.k !== 'string') throw BAD;
    return {
      generation: id(o.g),
      version: id(o.v),
      pins: idList(o.p, 16),
      postCount: o.n === undefined ? undefined : id(o.n),
      membershipVersion: o.m === undefined ? undefined : id(o.m),
    };
  });
}

/** Pins and the first entries of one grid state. `complete`: the grid has no further entries. */
export interface FirstOrder extends GridHead {
  readonly entries: readonly GridEntry[];
  readonly complete: boolean;
}

export const encodeOrder = (o: FirstOrder): string =>
  JSON.stringify({
    g: String(o.generation),
    v: String(o.version),
    p: o.pins.map(String),
    e: o.entries.map((x) => [String(x.postId), String(x.key)]),
    c: o.complete,
  });

export function decodeOrder(raw: string | null | undefined): FirstOrder | undefined {
  return attempt(raw, (text) => {
    const o = object(text);
    if (typeof o.c !== 'boolean' || !Array.isArray(o.e)) throw BAD;
    const entries = o.e.map((pair: unknown): GridEntry => {
      if (!Array.isArray(pair) || pair.length !== 2) throw BAD;
      return { postId: id(pair[0]), key: id(pair[1]) };
    });
    return {
      generation: id(o.g),
      version: id(o.v),
      pins: idList(o.p, 16),
      entries,
      complete: o.c,
    };
  });
}

/** 8-byte header (row count as bigint) + 24 bytes per row. */
export function encodeOverrides(rows: readonly OverrideRow[]): Buffer {
  const buf = Buffer.allocUnsafe(8 + rows.length * 24);
  buf.writeBigInt64BE(BigInt(rows.length), 0);
  rows.forEach((r, i) => {
    const at = 8 + i * 24;
    buf.writeBigInt64BE(r.postId, at);
    buf.writeBigInt64BE(r.key, at + 8);
    buf.writeBigInt64BE(r.movedVersion ?? -1n, at + 16);
  });
  return buf;
}

export function decodeOverrides(buf: Buffer | null | undefined): OverrideRow[] | undefined {
  if (buf == null || buf.length < 8 || (buf.length - 8) % 24 !== 0) return undefined;
  const n = Number(buf.readBigInt64BE(0));
  if (n !== (buf.length - 8) / 24) return undefined;
  const rows: OverrideRow[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = 8 + i * 24;
    const moved = buf.readBigInt64BE(at + 16);
    rows[i] = {
      postId: buf.readBigInt64BE(at),
      key: buf.readBigInt64BE(at + 8),
      movedVersion: moved < 0n ? undefined : moved,
    };
  }
  return rows;
}

export const encodePost = (p: PostBody): string =>
  JSON.stringify({
    id: String(p.postId),
    a: String(p.authorId),
    c: p.caption,
    m: p.mediaUrl,
    t: p.createdAt.getTime(),
    k: p.collaborators.length > 0 ? p.collaborators.map(String) : undefined,
  });

export function decodePost(raw: string | null | undefined): PostBody | undefined {
  return attempt(raw, (text) => {
    const o = object(text);
    if (typeof o.t !== 'number' || !Number.isFinite(o.t)) throw BAD;
    return {
      postId: id(o.id),
      authorId: id(o.a),
      caption: optionalString(o.c),
      mediaUrl: optionalString(o.m),
      createdAt: new Date(o.t),
      collaborators: o.k === undefined ? [] : idList(o.k, 1000),
    };
  });
}
