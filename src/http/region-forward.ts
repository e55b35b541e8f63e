/**
 * REGRID_HOME_REGIONS=forward (docs/regions.md "Home regions"): a write refused as misdirected
 * (421 `wrong_region`, decided inside its grid's compare-and-set: service/write-line/
 * home-region.ts) is sent on to the home region's service, and its answer is the client's one
 * answer. The request goes as it came (method, path, query, body) with `Authorization`,
 * `Idempotency-Key`, `If-Match` and `Content-Type`, so the home region checks the same token and
 * honours the same key: a retry of the same request, here or there, is applied at most once.
 *
 * A forwarded request carries `X-Regrid-Forwarded-From`; a region that finds it misdirected too
 * (a re-home in between) answers its 421 rather than forwarding again, so no request loops.
 * No peer for the home region, or it refused the connection: 503 `unavailable` with
 * Retry-After (nothing was applied anywhere). Sent but not answered in time: 503
 * `write_outcome_unknown` (it may have been applied there; a retry with the key is safe).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { RegionPolicy } from '../config/regions.js';
import { DomainError } from '../domain/errors.js';
import { writesForwarded } from '../obs/region-metrics.js';
import type { AppEnv } from './env.js';
import { problemOf, problemResponse } from './problem.js';
import { bodyTextOf } from './request.js';

export const FORWARDED_FROM = 'x-regrid-forwarded-from';
/** On a forwarded answer: the region whose service answered. */
const ANSWERED_BY = 'x-regrid-region';

export interface RegionForwarding {
  readonly policy: RegionPolicy;
  /** Region → base URL (REGRID_REGION_PEERS). */
  readonly peers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

const PASSED = ['authorization', 'idempotency-key', 'if-match', 'content-type', 'x-request-id'];
const RETURNED = ['content-type', 'etag', 'retry-after', 'idempotent-replayed', 'location'];

export function forwardMisdirected(f: RegionForwarding): MiddlewareHandler<AppEnv> {
  return async function forwardToHome(c, next) {
    await next();
    const err = c.error;
    if (!(err instanceof DomainError) || err.code !== 'wrong_region') return;
    if (c.req.header(FORWARDED_FROM) !== undefined) return; // one hop at most
    const home = String(err.details['home_region']);
    const answer = await forward(c, f, home);
    c.res = undefined; // the 421 goes, with its headers
    c.res = answer;
  };
}

async function forward(c: Context<AppEnv>, f: RegionForwarding, home: string): Promise<Response> {
  const base = f.peers[home];
  if (base === undefined) {
    writesForwarded.inc({ home_region: home, outcome: 'no_peer' });
    return notApplied(home, `no service of region ${home} is configured (REGRID_REGION_PEERS)`);
  }
  const headers: Record<string, string> = { [FORWARDED_FROM]: f.policy.region };
  for (const h of PASSED) {
    const v = c.req.header(h);
    if (v !== undefined) headers[h] = v;
  }
  const url = new URL(c.req.url);
  const method = c.req.method;
  const body = method === 'GET' || method === 'HEAD' ? undefined : await bodyTextOf(c);
  let res: Response;
  try {
    res = await fetch(`${base}${url.pathname}${url.search}`, {
      method,
      headers,
      ...(body !== undefined && body !== '' ? { body } : {}),
      signal: AbortSignal.timeout(f.timeoutMs),
      redirect: 'manual',
    });
  } catch (e) {
    if (refusedBeforeSent(e)) {
      writesForwarded.inc({ home_region: home, outcome: 'no_peer' });
      return notApplied(home, `the service of region ${home} did not accept the connection`);
    }
    writesForwarded.inc({ home_region: home, outcome: 'failed' });
    return problemResponse(
      problemOf(
        new DomainError(
          'write_outcome_unknown',
          `the write was sent to region ${home} and not answered in time; it may have been applied there`,
          { home_region: home, retry_after_s: 1 },
        ),
      ),
    );
  }
  writesForwarded.inc({ home_region: home, outcome: 'answered' });
  const out: Record<string, string> = { [ANSWERED_BY]: home };
  for (const h of RETURNED) {
    const v = res.headers.get(h);
    if (v !== null) out[h] = v;
  }
  return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
}

const notApplied = (home: string, detail: string): Response =>
  problemResponse(
    problemOf(
      new DomainError('unavailable', `${detail}; nothing was applied`, {
        home_region: home,
        retry_after_s: 1,
      }),
    ),
  );

/** A connection that was never made: the request did not reach the home region. */
function refusedBeforeSent(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } } | undefined)?.cause;
  const code = cause?.code ?? '';
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
}
