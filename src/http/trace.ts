/**
 * The HTTP request's span (src/obs/tracing.ts), registered only when tracing is on: the caller's
 * W3C `traceparent`/`tracestate` is its parent (so the trace keeps the caller's trace ID), its
 * context goes on the request's statement scope (http/deadline.ts), whence the write line and
 * every CQL statement of the request take it as their parent.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { tracedContext, type TracingRuntime } from '../obs/tracing.js';
import type { AppEnv } from './env.js';

export function traceRequests(t: TracingRuntime): MiddlewareHandler<AppEnv> {
  return async function traceRequest(c, next) {
    const incoming = t.extract({
      traceparent: c.req.header('traceparent'),
      tracestate: c.req.header('tracestate'),
    });
    const parent = tracedContext(t, incoming); // its spans below are made by `t`
    const method = c.req.method;
    const span = t.tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.path': c.req.path },
      },
      parent,
    );
    c.set('trace', trace.setSpan(parent, span));
    try {
      await next();
    } finally {
      const route = routePath(c, -1);
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
