/**
 * The service as src/main.ts starts it, for tracing.test.ts, reporting at exit whether the
 * OpenTelemetry SDK module (src/obs/tracing-sdk.ts) or any SDK package was ever loaded: ESM
 * loads are visible to a module hook, so one is registered before anything else is imported.
 */
import { register } from 'node:module';

const seen = new MessageChannel();
let loaded = false;
seen.port1.on('message', () => (loaded = true));
seen.port1.unref();
register(
  'data:text/javascript,' +
    encodeURIComponent(`
let port;
export function initialize(data) { port = data.port; }
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (/tracing-sdk|@opentelemetry[\\/\\\\]sdk-/.test(r.url)) port.postMessage(r.url);
  return r;
}`),
  { data: { port: seen.port2 }, transferList: [seen.port2] },
);
process.once('exit', () => console.log(`[trace-child] sdk loaded: ${loaded}`));
// As src/main.ts starts it, with one constant set: a loaded CI machine can stall one Redis reply
// past the default 150 ms, and the guard then skips Redis for a while: the move would send no
// Redis command for its trace to show.
const { loadConfig } = await import('../../../src/config/config.js');
const { startServer } = await import('../../../src/server.js');
await startServer(loadConfig(process.env, { REDIS_TIMEOUT_MS: 2000 }));
