/**
 * Tracing through an embedding host's own tracer (createRegrid's `tracer` option, src/embed.ts):
 * the host runs the OpenTelemetry SDK, its provider exports regrid's spans with its own, and
 * regrid loads no SDK of its own. Incoming `traceparent`/`tracestate` are read with the W3C
 * propagator, as when regrid runs the SDK itself (tracing-sdk.ts).
 */
import { ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TracingRuntime } from './tracing-types.js';

const getter = {
  keys: (carrier: Record<string, string | undefined>) => Object.keys(carrier),
  get: (carrier: Record<string, string | undefined>, key: string) => carrier[key],
};

export function hostRuntime(tracer: Tracer): TracingRuntime {
  const propagator = new W3CTraceContextPropagator();
  return {
    tracer,
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headers, getter),
    withSpan: (ctx: Context, span: Span) => trace.setSpan(ctx, span),
    spanContextOf: (ctx: Context) => trace.getSpanContext(ctx),
    root: ROOT_CONTEXT,
    // The host owns the provider: flushing and stopping it is the host's shutdown.
    shutdown: async () => {},
  };
}
