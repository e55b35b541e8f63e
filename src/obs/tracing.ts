/**
 * OpenTelemetry traces, off unless the standard variables ask for them
 * (`OTEL_TRACES_EXPORTER=otlp`, docs/operating.md "Tracing"). Off, nothing of the SDK is loaded
 * and no trace context exists: every span site is one `if` on its parent. On, `startTracing`
 * loads tracing-sdk.ts (the provider, the OTLP/HTTP exporter, the W3C propagator) once at
 * startup and hands the runtime to the composition root (src/server.ts, src/embed.ts,
 * src/cli/cmd-import.ts), which gives it to the roots of traced work: the HTTP middleware
 * (src/http/trace.ts) and the import (service/import-trace.ts).
 *
 * Context travels explicitly: the request span's context goes on the request's StatementScope
 * (store/statement-scope.ts), which the service hands to every statement and write of the
 * request; each span of ours names its parent (`tracer.startSpan(name, opts, parent)`). A trace
 * context made here carries the runtime that made it (`tracedContext`), so a child span needs
 * its parent and nothing else: no module holds the runtime.
 */
import {
  createContextKey,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type SpanOptions,
} from '@opentelemetry/api';
import type { OtlpProtocol, TracingRuntime } from './tracing-types.js';

export type { TracingRuntime } from './tracing-types.js';

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
 * Starts tracing if the environment asks for it (see `tracingWanted`); otherwise loads nothing
 * and answers undefined. The caller owns the runtime: it hands it on, and calls its `shutdown`
 * (flush) at exit.
 */
export async function startTracing(
  serviceVersion: string,
  env: Env = process.env,
): Promise<TracingRuntime | undefined> {
  if (!tracingWanted(env)) return undefined;
  const protocol = otlpProtocolOf(env);
  const { startSdk } = await import('./tracing-sdk.js');
  return startSdk({ protocol, serviceVersion });
}

const RUNTIME = createContextKey('regrid.tracing-runtime');

/** `parent` (default: the root) as a context whose spans `t` makes: where traced work starts. */
export const tracedContext = (t: TracingRuntime, parent: Context = ROOT_CONTEXT): Context =>
  parent.setValue(RUNTIME, t);

const runtimeOf = (ctx: Context): TracingRuntime | undefined =>
  ctx.getValue(RUNTIME) as TracingRuntime | undefined;

/**
 * A child span of `parent`, made by the runtime `parent` carries (`tracedContext`); undefined
 * when there is no parent (work outside any trace, or tracing off).
 */
export function startSpan(
  name: string,
  parent: Context | undefined,
  options?: SpanOptions,
): { span: Span; context: Context } | undefined {
  const t = parent && runtimeOf(parent);
  if (!t) return undefined;
  const span = t.tracer.startSpan(name, options, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** The span context of `ctx`'s span, for a link (undefined outside a trace). */
export const spanContextOf = (ctx: Context) =>
  runtimeOf(ctx) ? trace.getSpanContext(ctx) : undefined;
