/**
 * OpenTelemetry traces, off unless the standard variables ask for them
 * (`OTEL_TRACES_EXPORTER=otlp`, docs/operating.md "Tracing"). Off, nothing of the SDK is loaded:
 * `tracer()` answers undefined and every span site is one `if` on it. On, `startTracing` loads
 * tracing-sdk.ts (the provider, the OTLP/HTTP exporter, the W3C propagator) once at startup.
 *
 * Context travels explicitly: the HTTP middleware (src/http/trace.ts) puts the request span's
 * context on the request's StatementScope (store/statement-scope.ts), which the write line already
 * carries with each write (QueuedWrite.scope) and the Cql wrapper already reads at its single
 * execute point; each span of ours names its parent (`tracer.startSpan(name, opts, parent)`).
 */
import type { Context, Span, SpanOptions } from '@opentelemetry/api';
import type { OtlpProtocol, TracingRuntime } from './tracing-types.js';

export type { TracingRuntime } from './tracing-types.js';

let runtime: TracingRuntime | undefined;

/** The running tracing, or undefined when it is off (the fast path everywhere). */
export const tracing = (): TracingRuntime | undefined => runtime;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * True when the environment asks for traces: `OTEL_TRACES_EXPORTER` names `otlp` and
 * `OTEL_SDK_DISABLED` is not `true`. Unset (the default) is off: unlike the SDK's own default
 * (otlp), tracing here is opt-in, so a deployment that never heard of it exports nothing.
 */
export function tracingWanted(env: Env = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim().toLowerCase());
  return exporters.includes('otlp');
}

export function otlpProtocolOf(env: Env = process.env): OtlpProtocol {
  const p = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '')
    .trim()
    .toLowerCase();
  if (p === '' || p === 'http/protobuf') return 'http/protobuf';
  if (p === 'http/json') return 'http/json';
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${p} is not supported (http/protobuf or http/json)`);
}

/**
 * Starts tracing if the environment asks for it (see `tracingWanted`); otherwise loads nothing.
 * Call once, before the stores open. Answers the shutdown (flush) or undefined when off.
 */
export async function startTracing(
  serviceVersion: string,
  env: Env = process.env,
): Promise<(() => Promise<void>) | undefined> {
  if (runtime) return () => runtime!.shutdown();
  if (!tracingWanted(env)) return undefined;
  const protocol = otlpProtocolOf(env);
  const { startSdk } = await import('./tracing-sdk.js');
  const started = startSdk({ protocol, serviceVersion });
  runtime = started;
  return async () => {
    if (runtime === started) runtime = undefined;
    await started.shutdown();
  };
}

/**
 * Traces through `own` (an embedding host's tracer, tracing-host.ts) until the returned stop is
 * called. Set before the app and the Redis guard are made: both decide once whether to trace.
 */
export function useRuntime(own: TracingRuntime): () => void {
  if (runtime && runtime !== own) throw new Error('tracing is already on in this process');
  runtime = own;
  return () => {
    if (runtime === own) runtime = undefined;
  };
}

/** A child span of `parent` (a root span when there is none); undefined when tracing is off. */
export function startSpan(
  name: string,
  parent: Context | undefined,
  options?: SpanOptions,
): { span: Span; context: Context } | undefined {
  const t = runtime;
  if (!t) return undefined;
  const p = parent ?? t.root;
  const span = t.tracer.startSpan(name, options, p);
  return { span, context: t.withSpan(p, span) };
}

let ambient: () => Context | undefined = () => undefined;

/**
 * Where code that is handed no context finds the statement scope's (the Redis command spans,
 * src/cache/redis-spans.ts): set by the store layer, which owns the scope (store/cassandra.ts).
 */
export function traceSource(source: () => Context | undefined): void {
  ambient = source;
}

/** The trace context of the statement scope running now, if any. */
export const currentTrace = (): Context | undefined => ambient();
