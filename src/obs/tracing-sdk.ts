/**
 * The OpenTelemetry SDK, loaded by tracing.ts only when tracing is on: a tracer provider with a
 * batch span processor (its `OTEL_BSP_*` settings), the OTLP/HTTP exporter for the chosen protocol
 * (`http/protobuf` or `http/json`; both read `OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT`, `_HEADERS`,
 * `_TIMEOUT` themselves), the resource from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`,
 * and the W3C trace-context propagator for incoming `traceparent`/`tracestate`.
 *
 * No context manager is registered: regrid's spans name their parent (tracing.ts).
 */
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { hostRuntime } from './tracing-host.js';
import type { OtlpProtocol, TracingRuntime } from './tracing-types.js';

export function startSdk(opts: { protocol: OtlpProtocol; serviceVersion: string }): TracingRuntime {
  const exporter = opts.protocol === 'http/json' ? new JsonExporter() : new ProtoExporter();
  // OTEL_SERVICE_NAME (and OTEL_RESOURCE_ATTRIBUTES) win over the defaults, as the spec says.
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: 'regrid',
    [ATTR_SERVICE_VERSION]: opts.serviceVersion,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return hostRuntime(provider.getTracer('regrid', opts.serviceVersion), () => provider.shutdown());
}
