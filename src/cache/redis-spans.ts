/**
 * One span per Redis command of traced work (src/obs/tracing.ts), made by wrapping the client's
 * `sendCommand` (every command, pipelined or not, goes through it). The maintained
 * `@opentelemetry/instrumentation-ioredis` patches ioredis through `require` hooks, which never
 * see this ESM service load it (tried with ioredis 5: no span without an import loader hook).
 * Parent: the trace context the caller hands the guard's call (redis.ts `run`), e.g. the write
 * line's turn for the cache invalidation after a commit; a command outside traced work (the
 * sweeper, probes) is not spanned. A traced call's commands are not auto-pipelined: a shared
 * pipeline leaves with commands of other callers, which its parent is not.
 * Only the command name is recorded, never its arguments (cache keys hold profile IDs, values
 * hold posts).
 */
import { SpanKind, SpanStatusCode, type Context } from '@opentelemetry/api';
import { startSpan } from '../obs/tracing.js';

interface Command {
  readonly name: string;
  readonly promise: Promise<unknown>;
}

type Sender = { sendCommand(command: Command, ...rest: unknown[]): unknown };

/**
 * `client` as seen by one call of traced work: a view (same connection, same state) whose
 * commands are spanned as children of `parent`.
 */
export function commandsUnder<C extends object>(client: C, parent: Context): C {
  const real = client as unknown as Sender & { options: object };
  const view = Object.create(client) as C & Sender & { options: object };
  // Each command through the view's own `sendCommand` (an auto-pipelined one would go through
  // the shared pipeline's), written by the client itself.
  view.options = { ...real.options, enableAutoPipelining: false };
  view.sendCommand = (command: Command, ...rest: unknown[]) => {
    const name = command.name.toUpperCase();
    const s = startSpan(`redis ${name}`, parent, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'redis', 'db.operation.name': name },
    });
    const result = real.sendCommand(command, ...rest);
    if (s) {
      command.promise.then(
        () => s.span.end(),
        (err: unknown) => {
          s.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
          s.span.end();
        },
      );
    }
    return result;
  };
  return view;
}
