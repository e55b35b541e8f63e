/**
 * The HTTP server's own timeouts (config.ts; applied by http/server-options.ts and the body
 * limit, http/body-limit.ts). Set here rather than left to Node's defaults, which held a
 * stalled request for minutes (a 300 s request timeout checked every 30 s) and closed idle
 * keep-alive connections after 5 s, before a load balancer's usual 60 s idle timeout.
 */
import { z } from 'zod';

const ms = (def: number, min: number) => z.coerce.number().int().min(min).default(def);

export const HttpServerConfig = {
  /** A request body not complete this long after its headers: 408, and the connection closed. */
  BODY_TIMEOUT_MS: ms(5_000, 10),
  /** Headers not complete this long after the first byte: Node's 408, connection closed. */
  HTTP_HEADERS_TIMEOUT_MS: ms(10_000, 10),
  /** The whole request (headers and body) received within this; raised to the headers' if lower. */
  HTTP_REQUEST_TIMEOUT_MS: ms(30_000, 10),
  /**
   * An idle keep-alive connection is closed after this. Above a fronting proxy's idle timeout
   * (60 s for most), so the proxy, not the server, closes first and never reuses a connection
   * the server is closing.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: ms(65_000, 0),
};
