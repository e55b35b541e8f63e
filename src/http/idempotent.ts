/**
 * Idempotency-Key for a write route (docs/idempotency.md). A route hands its write to
 * `idempotentWrite` as a function that returns the response it wants to send; that function
 * receives `opts(render)` to pass to the service write so the request key rides in the grid's
 * compare-and-set. `render` must build the same response from (planner result, version,
 * generation) that the route returns, because that is what a replay after a crash will send.
 *
 * Without the header (or without an IdempotencyService) the write simply runs.
 * The fingerprint covers the method, the concrete path (with its IDs), the canonical JSON body
 * and If-Match. A replay carries `Idempotent-Replayed: true`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { WriteOptions } from '../service/grid-writer.js';
import {
  fingerprintRequest,
  type IdempotencyService,
  type ResponseRenderer,
  type StoredResponse,
} from '../service/idempotency.js';
import type { AppEnv } from './env.js';

export type WriteOptionsFor = (render: ResponseRenderer) => WriteOptions;

export interface IdempotentSpec {
  /** Whose key space: the acting profile, 0n for moderation. */
  readonly scope: bigint;
  /** The grid whose compare-and-set records the key (none = the write is idempotent by itself). */
  readonly gridProfileId?: bigint;
}

export async function idempotentWrite(
  c: Context<AppEnv>,
  idem: IdempotencyService | undefined,
  spec: IdempotentSpec,
  exec: (opts: WriteOptionsFor) => Promise<StoredResponse>,
): Promise<Response> {
  const key = c.req.header('idempotency-key');
  if (key === undefined || !idem) return send(c, await exec(() => ({})), false);
  const fingerprint = fingerprintRequest({
    method: c.req.method,
    route: c.req.path,
    body: await c.req.text(),
    extra: c.req.header('if-match') ?? '',
  });
  const grid = spec.gridProfileId;
  const { response, replayed } = await idem.run(
    { scope: spec.scope, key, fingerprint, ...(grid !== undefined ? { gridProfileId: grid } : {}) },
    (ticket) =>
      exec((render) =>
        grid === undefined ? {} : { interceptor: idem.interceptor(ticket, grid, render) },
      ),
  );
  return send(c, response, replayed);
}

function send(c: Context<AppEnv>, r: StoredResponse, replayed: boolean): Response {
  const headers: Record<string, string> = {};
  if (r.etag) headers['ETag'] = r.etag;
  if (replayed) headers['Idempotent-Replayed'] = 'true';
  return c.json(r.body as object, r.status as ContentfulStatusCode, headers);
}
