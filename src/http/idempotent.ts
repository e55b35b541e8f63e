/**
 * Idempotency-Key for a write route (docs/idempotency.md). A route hands its write to
 * `idempotentWrite` as a function that returns the response it wants to send; that function
 * receives `opts()` to pass to the service write so the request key rides in the grid's
 * compare-and-set, and the request's statement scope (its deadline, deadline.ts) in every
 * statement the write sends. `spec.render` must build the same response from (planner result, version,
 * generation) that the route returns, because that is what a replay after a crash will send.
 *
 * Without the header (or without an IdempotencyService) the write simply runs.
 * The fingerprint covers the method, the concrete path (with its IDs), the canonical JSON body
 * and If-Match. A replay carries `Idempotent-Replayed: true`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { WriteOptions } from '../service/write-line/write-line.js';
import {
  fingerprintRequest,
  type IdempotencyService,
  type ResponseRenderer,
  type StoredResponse,
} from '../service/idempotency/idempotency.js';
import { headerOf, type AppEnv } from './env.js';
import { bodyTextOf } from './request.js';

export type WriteOptionsFor = () => WriteOptions;

export interface IdempotentSpec {
  /** Whose key space: the acting profile, 0n for moderation. */
  readonly scope: bigint;
  /** The grid whose compare-and-set records the key (none = the write is idempotent by itself). */
  readonly gridProfileId?: bigint;
  /**
   * Builds the route's response from (planner result, version, generation): used for the live
   * answer and to re-render a replay from the grid's request ring. Required with gridProfileId.
   */
  readonly render?: ResponseRenderer;
}

export async function idempotentWrite(
  c: Context<AppEnv>,
  idem: IdempotencyService | undefined,
  spec: IdempotentSpec,
  exec: (opts: WriteOptionsFor) => Promise<StoredResponse>,
): Promise<Response> {
  const key = headerOf(c, 'idempotency-key');
  const scope = c.get('scope');
  if (key === undefined || !idem) return send(c, await exec(() => ({ scope })), false);
  const fingerprint = fingerprintRequest({
    method: c.req.method,
    route: c.req.path,
    body: await bodyTextOf(c),
    extra: headerOf(c, 'if-match') ?? '',
  });
  const grid = spec.gridProfileId;
  const { response, replayed } = await idem.run(
    {
      scope: spec.scope,
      key,
      fingerprint,
      ...(grid !== undefined ? { gridProfileId: grid } : {}),
      ...(spec.render ? { render: spec.render } : {}),
      statements: scope,
    },
    (ticket) =>
      exec(() =>
        grid === undefined ? { scope } : { scope, interceptor: idem.interceptor(ticket, grid) },
      ),
  );
  return send(c, response, replayed);
}

function send(c: Context<AppEnv>, r: StoredResponse, replayed: boolean): Response {
  const headers: Record<string, string> = {};
  // The request ID rides in the plain header object (observe.ts would otherwise set it on
  // `c.res.headers`, building a WHATWG Headers per response for the adapter to copy back).
  const requestId = c.get('requestId');
  if (requestId !== undefined) {
    headers['X-Request-Id'] = requestId;
    c.set('requestIdSent', true);
  }
  if (r.etag) headers['ETag'] = r.etag;
  if (replayed) headers['Idempotent-Replayed'] = 'true';
  return c.json(r.body as object, r.status as ContentfulStatusCode, headers);
}

/**
 * An ID the response hands out (a move's `move_id`) that a replay must repeat: derived from the
 * Idempotency-Key when there is one (a replay re-renders its response from the grid's request
 * ring with the retry's own request), random otherwise. UUID-shaped (version 8, RFC 9562).
 */
export function requestScopedUuid(c: Context<AppEnv>, scope: bigint, purpose: string): string {
  const key = headerOf(c, 'idempotency-key');
  if (key === undefined) return randomUUID();
  const b = createHash('sha256').update(`${purpose}:${scope}:${key}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80; // version 8 (custom)
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
