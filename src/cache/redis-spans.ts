/**
 * One span per Redis command when tracing is on (src/obs/tracing.ts), made by wrapping the
 * client's `sendCommand` (every command, pipelined or not, goes through it). The maintained
 * `@opentelemetry/instrumentation-ioredis` patches ioredis through `require` hooks, which never
 * see this ESM service load it (tried with ioredis 5: no span without an import loader hook).
 * Parent: the running statement scope's trace context (the request, or the write line's turn);
 * a command outside traced work (the sweeper, probes) is not spanned.
 * Only the command name is recorded, never its arguments (cache keys hold profile IDs, values
 * hold posts).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { currentTrace, startSpan, tracing } from '../obs/tracing.js';

interface Command {
  readonly name: string;
  readonly promise: Promise<unknown>;
}

export function traceCommands<C extends object>(client: C): C {
  if (!tracing()) return client;
  const target = client as unknown as {
    sendCommand(command: Command, ...rest: unknown[]): unknown;
  };
  const send = target.sendCommand.bind(client);
  target.sendCommand = (command: Command, ...rest: unknown[]) => {
    const parent = currentTrace();
    if (!parent) return send(command, ...rest); // outside traced work: no trace of one command
    const name = command.name.toUpperCase();
    const s = startSpan(`redis ${name}`, parent, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'redis', 'db.operation.name': name },
    });
    const result = send(command, ...rest);
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
  return client;
}
