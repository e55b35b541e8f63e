/**
 * Tracing through an embedding host's own tracer (createRegrid's `tracer` option, src/embed.ts):
 * the host runs the OpenTelemetry SDK, its provider exports regrid's spans with its own, and
 * regrid loads no SDK of its own. Incoming `traceparent`/`tracestate` are read with the W3C
 * propagator, as when regrid runs the SDK itself (tracing-sdk.ts).
 */
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TracingRuntime } from './tracing-types.js';

const getter = {
  keys: (carrier: Record<string, string | undefined>) => Object.keys(carrier),
  get: (carrier: Record<string, string | undefined>, key: string) => carrier[key],
};

/** `shutdown`: by default nothing, since the host owns the provider (tracing-sdk.ts flushes its own). */
export function hostRuntime(tracer: Tracer, shutdown = async () => {}): TracingRuntime {
  const propagator = new W3CTraceContextPropagator();
  return {
    tracer,
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headers, getter),
    shutdown,
  };
}
