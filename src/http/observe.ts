/**
 * The one request middleware of the observability seam: a request ID (the caller's
 * `X-Request-Id` when it is a sane token, else a fresh UUID; echoed in the response), the
 * request counter and latency histogram by route pattern, and one JSON log line per request.
 *
 * Only fields chosen here are logged: no headers (tokens), no bodies (post captions), no query
 * string (cursors). The route is the pattern (`/v1/posts/:post_id`), so metrics stay one
 * series per route, not per post.
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { isDomainError } from '../domain/errors.js';
import type { Logger } from '../obs/logger.js';
import { httpDuration, httpRequests } from '../obs/metrics-platform.js';
import { headerOf, type AppEnv } from './env.js';
import { causeLine } from './problem.js';

/** Letters, digits and `._:-`, at most 128: safe in a header, a log field and a grep. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && SANE_ID.test(header) ? header : randomUUID();

/** The pattern of the handler that answered; middleware-only matches (404s) are 'unmatched'. */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  }
  return 'unmatched';
}

export function observe(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function observeRequest(c, next) {
    const started = performance.now();
    const requestId = requestIdOf(headerOf(c, 'x-request-id'));
    c.set('requestId', requestId);
    await next();
    const status = c.res.status;
    // A response that already carries it (sendRendered) keeps its plain header object: mutating
    // `c.res.headers` would turn the adapter's cached headers into a WHATWG Headers per request.
    if (!c.get('requestIdSent')) setHeader(c, 'x-request-id', requestId);
    recordRequest(logger, {
      requestId,
      method: c.req.method,
      route: routeOf(c),
      path: c.req.path,
      status,
      started,
      profileId: c.get('profileId'),
      err: c.error,
      expected: c.get('expectedFailure'),
    });
  };
}

export interface RequestRecord {
  readonly requestId: string;
  readonly method: string;
  /** The route pattern (`/v1/posts/:post_id`), or 'unmatched'. */
  readonly route: string;
  readonly path: string;
  readonly status: number;
  /** `performance.now()` when the request was taken up. */
  readonly started: number;
  readonly profileId?: bigint | undefined;
  readonly err?: unknown;
  /** A 5xx the handler meant (a draining `/readyz`): logged at info. */
  readonly expected?: boolean | undefined;
}

/** The request's metrics and its log line (also for a held first page: the page front, routes/grid.ts). */
export function recordRequest(logger: Logger, r: RequestRecord): void {
  const seconds = (performance.now() - r.started) / 1000;
  const method = METHODS.has(r.method) ? r.method : 'OTHER';
  const { route, status, err } = r;
  httpRequests.inc({ method, route, status_class: `${Math.floor(status / 100)}xx` });
  httpDuration.observe({ method, route }, seconds);
  const line = {
    req_id: r.requestId,
    method,
    route,
    path: r.path,
    status,
    latency_ms: Math.round(seconds * 1e4) / 10,
    ...(r.profileId !== undefined ? { profile_id: r.profileId.toString() } : {}),
    ...(err === undefined ? {} : errorFields(err, status)),
  };
  if (status >= 500 && !r.expected) logger.error(line, 'request failed');
  else logger.info(line, 'request');
}

/** What the line of a request that failed says of its error: a domain code, a 5xx's cause. */
const errorFields = (err: unknown, status: number) => ({
  ...(isDomainError(err) ? { code: err.code } : {}),
  ...(status >= 500 ? { cause: causeLine(err) } : {}),
});

/** Responses built elsewhere (fetch-style) may have immutable headers: copy them then. */
function setHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}
