/**
 * Encodings of cache values. Whatever Redis returns is parsed defensively: a value that does not
 * decode is treated as a miss (and overwritten by the next fill), never trusted.
 *
 * - the summary: small JSON with IDs as decimal strings;
 * - post bodies: JSON.
 *
 * The checks are hand-written rather than zod schemas: a hit decodes a summary on every cached
 * read and bodies on every page. Each decoder checks every field it returns and turns any
 * surprise into `undefined`.
 */
import type { GridVersion } from '../domain/grid-version.js';
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
 * The profile summary readers consult first: the current state's generation and version. `k`
 * in the JSON names that state's keys (keys.ts `state`), so READ_PAGE finds its page in the same
 * script call.
 */
export const encodeSummary = (s: GridVersion, stateKey: string): string =>
  JSON.stringify({ g: String(s.generation), v: String(s.version), k: stateKey });

export function decodeSummary(raw: string | null | undefined): GridVersion | undefined {
  return attempt(raw, (text) => {
    const o = object(text);
    if (typeof o.k !== 'string') throw BAD;
    return { generation: id(o.g), version: id(o.v) };
  });
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
