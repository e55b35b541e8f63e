/**
 * The request side of Idempotency-Key (docs/idempotency.md): validating the header, the request
 * fingerprint ("same request" = same method, path, canonical JSON body and If-Match), the fixed
 * size key hash kept in the grid's request ring, and the stored response's serialization.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';

/** What a write route answers; stored and replayed verbatim. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  /** ETag header, for PATCH /v1/me/grid/order. */
  readonly etag?: string;
}

/**
 * Fingerprint of a request: what must be equal for a retry to count as "the same request".
 * The body is canonicalized (JSON with sorted keys) so whitespace or key order don't matter.
 */
export function fingerprintRequest(parts: {
  readonly method: string;
  readonly route: string;
  readonly body: string;
  readonly extra?: string;
}): Buffer {
  return createHash('sha256')
    .update(`${parts.method.toUpperCase()}\n${parts.route}\n${parts.extra ?? ''}\n`)
    .update(canonicalBody(parts.body))
    .digest();
}

function canonicalBody(body: string): string {
  if (body.trim() === '') return '';
  try {
    return JSON.stringify(sortKeys(JSON.parse(body)));
  } catch {
    return body; // not JSON: the route will reject it; fingerprint the bytes as they are
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * The header is a Structured Field string (`"abc"`); bare tokens are accepted too.
 * 1–255 printable ASCII characters.
 */
export function validateKey(raw: string): string {
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new DomainError(
      'invalid_request',
      'Idempotency-Key must be 1-255 printable ASCII characters',
      {
        field: 'Idempotency-Key',
      },
    );
  }
  return key;
}

export const hash16 = (s: string): string =>
  createHash('sha256').update(s).digest().subarray(0, 16).toString('hex');

/**
 * What a grid's request ring keeps per committed request: the planner result and the version it
 * committed, not the rendered response. A retry carries the same request (same fingerprint), so
 * the route re-renders the identical response from it, and the hot partition's static cell stays
 * small whatever the response holds (a caption can be 2 KB). bigints survive as tagged strings.
 */
export interface CommittedOutcome {
  readonly result: unknown;
  readonly version: bigint;
  readonly generation: bigint;
}

export const encodeCommitted = (o: CommittedOutcome): string =>
  JSON.stringify({ r: o.result ?? null, v: o.version, g: o.generation }, (_k, v: unknown) =>
    typeof v === 'bigint' ? { $n: v.toString() } : v,
  );

export function decodeCommitted(text: string): CommittedOutcome {
  const o = JSON.parse(text, (_k, v: unknown) =>
    v && typeof v === 'object' && typeof (v as { $n?: unknown }).$n === 'string'
      ? BigInt((v as { $n: string }).$n)
      : v,
  ) as { r: unknown; v: bigint; g: bigint };
  return { result: o.r, version: o.v, generation: o.g };
}

export const encodeOutcome = (r: StoredResponse): string =>
  JSON.stringify({ s: r.status, b: r.body, ...(r.etag ? { e: r.etag } : {}) });

export function decodeOutcome(text: string): StoredResponse {
  const o = JSON.parse(text) as { s: number; b: unknown; e?: string };
  return { status: o.s, body: o.b, ...(o.e ? { etag: o.e } : {}) };
}
