import type { Context as TraceContext } from '@opentelemetry/api';
import type { Context } from 'hono';
import type { StatementScope } from '../store/statement-scope.js';

/** Who reads a route that answers an owner more than anyone else (http/viewer.ts). */
export type Viewer =
  | { readonly kind: 'anyone' }
  | { readonly kind: 'profile'; readonly profileId: bigint }
  | { readonly kind: 'service'; readonly name: string };

/** The Hono environment shared by the app and its sub-apps. */
export interface AppEnv {
  Variables: {
    /** Set by the auth middleware on /v1/me/* routes. */
    profileId: bigint;
    /** Set by the service-token middleware on service routes (http/service-auth.ts). */
    serviceName: string;
    /** Set on the reads that answer an owner more (http/viewer.ts). */
    viewer: Viewer;
    /** Set by the observe middleware on every request (http/observe.ts). */
    requestId: string;
    /** The response already carries `x-request-id` (set by a handler that builds its headers). */
    requestIdSent: boolean;
    /** The request body as text, when the body limit read it off the Node request itself. */
    bodyText: string;
    /** A 5xx the process meant (a draining `/readyz`): the request line is info, not error. */
    expectedFailure: boolean;
    /** The deadline already answered this request (http/deadline.ts). */
    answeredByDeadline: boolean;
    /**
     * What the request has sent to Cassandra (http/deadline.ts sets it on every /v1 route but
     * the grid read, which gets its own only on its way to Cassandra): handed to the service
     * calls, which pass it to every statement they send for the request.
     */
    scope: StatementScope;
    /** The request span's context, set only when tracing is on (http/trace.ts). */
    trace: TraceContext;
  };
}

/**
 * A request header by lower-case name. Behind @hono/node-server the Node request's own header
 * object is read, so a bodyless GET never builds a WHATWG `Headers` for its request (the grid
 * page's hot path reads two headers). Elsewhere (tests, other runtimes) it is `c.req.header()`.
 */
export function headerOf(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[]> } })
    ?.incoming;
  if (incoming?.headers) {
    const raw = incoming.headers[name];
    return Array.isArray(raw) ? raw.join(', ') : raw;
  }
  return c.req.raw.headers.get(name) ?? undefined;
}
