/**
 * Conditional GETs of grid pages: a strong ETag derived from the rendered body (not from the
 * version alone, so it changes with anything the body shows) and `If-None-Match` answered 304
 * without a body. `no-cache` lets clients and proxies keep a copy but revalidate every use: a grid
 * changes whenever its owner drags a post.
 */
import type { Context } from 'hono';
import { headerOf, type AppEnv } from './env.js';

/** RFC 9110 §13.1.2: GET compares weakly, so a `W/` prefix on the client's tag is ignored. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}

export function sendRendered(
  c: Context<AppEnv>,
  page: { readonly body: string; readonly etag: string },
) {
  const requestId = c.get('requestId');
  if (requestId !== undefined) c.set('requestIdSent', true);
  return renderedResponse(page, requestId, headerOf(c, 'if-none-match'));
}

/** A rendered page's answer: its status and headers (the body is the page's, or none on 304). */
export interface RenderedAnswer {
  readonly status: 200 | 304;
  readonly headers: Record<string, string>;
}

/** Decided once here for the route and its page front (routes/grid.ts): the same headers either way. */
export function renderedAnswer(
  page: { readonly etag: string },
  requestId: string | undefined,
  ifNoneMatch: string | undefined,
): RenderedAnswer {
  const headers: Record<string, string> = {
    etag: page.etag,
    'cache-control': 'no-cache',
    // On the 304 too: a cache refreshes its stored headers from a 304 (RFC 9111 §4.3.4), and
    // without it the Node adapter labels the empty answer text/plain.
    'content-type': 'application/json',
  };
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  return { status: noneMatch(ifNoneMatch, page.etag) ? 304 : 200, headers };
}

/**
 * As a Response. A plain header object, not `c.body()`: with more than one header Hono builds a
 * WHATWG Headers, which the Node adapter then copies back into an object on every request.
 */
export function renderedResponse(
  page: { readonly body: string; readonly etag: string },
  requestId: string | undefined,
  ifNoneMatch: string | undefined,
): Response {
  const answer = renderedAnswer(page, requestId, ifNoneMatch);
  return new Response(answer.status === 304 ? null : page.body, answer);
}
