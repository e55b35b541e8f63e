/**
 * Encodings of cache values. Whatever Redis returns is parsed defensively: a value that does not
 * decode is treated as a miss (and overwritten by the next fill), never trusted.
 *
 * - summary and first-page order: small JSON with IDs as decimal strings;
 * - override lists (up to tens of thousands of rows): packed signed 64-bit big-endian triples
 *   (post ID, key, moved version or -1), decoded without a JSON parse;
 * - post bodies: JSON.
 */
import { z } from 'zod';
import type { GridEntry } from '../domain/merge.js';
import type { GridHead, OverrideRow, PostBody } from './source.js';

const Id = z
  .string()
  .regex(/^-?[0-9]{1,20}$/)
  .transform(BigInt);

/**
 * The profile summary readers consult first: the grid head plus the post count. `k` in the JSON
 * names the order entry of that state, so the hit path can fetch both in one script call.
 */
export interface Summary extends GridHead {
  readonly postCount: number | undefined;
}

const SummaryJson = z.object({
  g: Id,
  v: Id,
  p: z.array(Id).max(16),
  n: z.number().int().optional(),
  k: z.string(),
});

export const encodeSummary = (s: Summary, orderKey: string): string =>
  JSON.stringify({
    g: String(s.generation),
    v: String(s.version),
    p: s.pins.map(String),
    n: s.postCount,
    k: orderKey,
  });

export function decodeSummary(raw: string | null | undefined): Summary | undefined {
  if (raw == null) return undefined;
  const parsed = SummaryJson.safeParse(safeJson(raw));
  if (!parsed.success) return undefined;
  const d = parsed.data;
  return { generation: d.g, version: d.v, pins: d.p, postCount: d.n };
}

/** Pins and the first entries of one grid state. `complete`: the grid has no further entries. */
export interface FirstOrder extends GridHead {
  readonly entries: readonly GridEntry[];
  readonly complete: boolean;
}

const Pair = z.tuple([Id, Id]);
const OrderJson = z.object({
  g: Id,
  v: Id,
  p: z.array(Id).max(16),
  e: z.array(Pair),
  c: z.boolean(),
});

export const encodeOrder = (o: FirstOrder): string =>
  JSON.stringify({
    g: String(o.generation),
    v: String(o.version),
    p: o.pins.map(String),
    e: o.entries.map((x) => [String(x.postId), String(x.key)]),
    c: o.complete,
  });

export function decodeOrder(raw: string | null | undefined): FirstOrder | undefined {
  if (raw == null) return undefined;
  const parsed = OrderJson.safeParse(safeJson(raw));
  if (!parsed.success) return undefined;
  const d = parsed.data;
  return {
    generation: d.g,
    version: d.v,
    pins: d.p,
    entries: d.e.map(([postId, key]) => ({ postId, key })),
    complete: d.c,
  };
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

const PostJson = z.object({
  id: Id,
  a: Id,
  c: z.string().optional(),
  m: z.string().optional(),
  t: z.number(),
  k: z.array(Id).optional(),
});

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
  if (raw == null) return undefined;
  const parsed = PostJson.safeParse(safeJson(raw));
  if (!parsed.success) return undefined;
  const d = parsed.data;
  return {
    postId: d.id,
    authorId: d.a,
    caption: d.c,
    mediaUrl: d.m,
    createdAt: new Date(d.t),
    collaborators: d.k ?? [],
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
