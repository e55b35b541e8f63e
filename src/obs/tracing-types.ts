/** The shapes shared by tracing.ts and the SDK module it loads (tracing-sdk.ts). */
import type { Context, Tracer } from '@opentelemetry/api';

/** The OTLP protocols supported (`OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL`; default http/protobuf). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What tracing-sdk.ts hands back once the provider runs. */
export interface TracingRuntime {
  readonly tracer: Tracer;
  /** The context of an incoming W3C `traceparent`/`tracestate` (ROOT when absent or bad). */
  extract(headers: Record<string, string | undefined>): Context;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}
