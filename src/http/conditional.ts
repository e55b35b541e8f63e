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

/**
 * A rendered page's answer: 200 with the body, or 304 without one when `If-None-Match` names its
 * ETag; the same headers either way (`cache-control: no-cache`, the ETag, the content type, the
 * request ID). A `Response` of its own with a plain header object: Hono's `c.body` turns more
 * than one header into a WHATWG `Headers`, which the Node adapter then copies back out.
 */
export function sendRendered(
  c: Context<AppEnv>,
  page: { readonly body: string; readonly etag: string },
) {
  const requestId = c.get('requestId');
  const headers: Record<string, string> = {
    etag: page.etag,
    'cache-control': 'no-cache',
    // On the 304 too: a cache refreshes its stored headers from a 304 (RFC 9111 §4.3.4), and
    // without it the Node adapter labels the empty answer text/plain.
    'content-type': 'application/json',
  };
  if (requestId !== undefined) {
    headers['x-request-id'] = requestId;
    c.set('requestIdSent', true);
  }
  if (noneMatch(headerOf(c, 'if-none-match'), page.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(page.body, { status: 200, headers });
}
