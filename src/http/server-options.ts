/**
 * The options the Node HTTP server is created with (`serve()` of @hono/node-server, src/main.ts):
 * where it listens, its header, request and keep-alive timeouts from the configuration
 * (config/http.ts), and how often Node checks them. Node checks header and request timeouts on a timer (30 s by default),
 * so a 10 s headers timeout fired anywhere up to 40 s; checked at a quarter of the shortest
 * timeout (at most every second), a stalled request is closed within 25 % of its timeout.
 */
import type { ServerOptions } from 'node:http';
import type { Config } from '../config/config.js';

export type ServerConfig = Pick<
  Config,
  | 'PORT'
  | 'HOST'
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_REQUEST_TIMEOUT_MS'
  | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'
>;

export interface NodeServerOptions {
  readonly port: number;
  readonly hostname: string;
  readonly serverOptions: ServerOptions;
}

export function serverOptionsOf(config: ServerConfig): NodeServerOptions {
  const headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  // Node refuses a headers timeout above the request timeout.
  const requestTimeout = Math.max(config.HTTP_REQUEST_TIMEOUT_MS, headersTimeout);
  const check = Math.min(1_000, Math.max(10, Math.floor(headersTimeout / 4)));
  return {
    port: config.PORT,
    hostname: config.HOST,
    serverOptions: {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: check,
    },
  };
}
