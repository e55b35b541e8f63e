/**
 * The hot first grid page, answered ahead of the router. When the process-local tier holds the
 * page (rendered-read.ts `now`), `GET /v1/profiles/:profile_id/grid` is answered synchronously,
 * exactly as the route would answer it: the same response (conditional.ts `renderedAnswer`),
 * the same request metrics and log line (observe.ts `recordRequest`). An answer given without
 * waiting cannot overrun its deadline, so what it skips is per-request overhead only: Hono
 * composing four handlers (one promise each), the deadline's timer, race and AsyncLocalStorage
 * scope, and the promises of the asynchronous read.
 *
 * Everything else goes to the app unchanged: other routes and methods (HEAD too), a cursor, a
 * path or query string the app would decode or has not parsed yet (`parsedQuery`), a profile ID
 * the route would refuse, stale flags, a local-tier miss, a request drawn for a sampled check.
 * The draw made here travels with the request (`frontDrawOf`), so each request is drawn once.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Hono } from 'hono';
import { MAX_ID, CANONICAL_ID } from '../domain/ids.js';
import type { Logger } from '../obs/logger.js';
import type { GridService } from '../service/grid-service.js';
import { renderedAnswer } from './conditional.js';
import { requestHeader, type AppEnv } from './env.js';
import { recordRequest, requestIdOf } from './observe.js';
import { parsedQuery } from './request.js';
import { GridQuery } from './schemas.js';

const GRID_PAGE = /^\/v1\/profiles\/([^/]+)\/grid$/;
const ROUTE = '/v1/profiles/:profile_id/grid';

const draws = new WeakMap<Request, boolean>();

/** The sample draw the front made for a request it passed on, if it made one. */
export const frontDrawOf = (req: Request): boolean | undefined => draws.get(req);

/** The route's `parseIdParam`, without the error: undefined where the route answers 400. */
function profileIdOf(text: string): bigint | undefined {
  if (!CANONICAL_ID.test(text)) return undefined;
  const id = BigInt(text);
  return id <= MAX_ID ? id : undefined;
}

/** Puts the front before `app`'s router (its `fetch`, which `app.request` also goes through). */
export function withPageFront(app: Hono<AppEnv>, service: GridService, logger: Logger): void {
  const full = app.fetch;

  function answer(req: Request, env: unknown): Response | undefined {
    if (req.method !== 'GET') return undefined;
    const started = performance.now();
    const url = req.url;
    const start = url.indexOf('/', url.indexOf(':') + 4); // as Hono's getPath
    const at = url.indexOf('?', start);
    const path = at < 0 ? url.slice(start) : url.slice(start, at);
    const m = GRID_PAGE.exec(path);
    if (!m || path.includes('%') || url.includes('#')) return undefined;
    const q = parsedQuery(GridQuery, at < 0 ? '' : url.slice(at));
    if (!q || q.cursor !== undefined) return undefined;
    const profileId = profileIdOf(m[1]!);
    if (profileId === undefined) return undefined;
    const got = service.renderedPageNow({ profileId, limit: q.limit, minVersion: q.min_version });
    if (!('body' in got)) {
      draws.set(req, got.sampled);
      return undefined;
    }
    const requestId = requestIdOf(requestHeader(req, env, 'x-request-id'));
    const reply = renderedAnswer(got, requestId, requestHeader(req, env, 'if-none-match'));
    const { status } = reply;
    recordRequest(logger, { requestId, method: 'GET', route: ROUTE, path, status, started });
    const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (status === 304 && outgoing) {
      // Sent here (the adapter's documented escape hatch): a body-less Response would make the
      // adapter build a fetch Response and copy its Headers back, per request. Last: once
      // written, nothing may fall back to the app.
      outgoing.writeHead(304, reply.headers).end();
      return RESPONSE_ALREADY_SENT;
    }
    return new Response(status === 304 ? null : got.body, reply);
  }

  app.fetch = (req, env, ctx) => {
    let res: Response | undefined;
    try {
      res = answer(req, env);
    } catch {
      // Never the front's own failure: the app answers (and reports) whatever went wrong.
    }
    return res ?? full(req, env, ctx);
  };
}
