/**
 * The HTTP server's own timeouts (config.ts; applied by http/server-options.ts and the body
 * limit, http/body-limit.ts). Set here rather than left to Node's defaults, which held a
 * stalled request for minutes (a 300 s request timeout checked every 30 s) and closed idle
 * keep-alive connections after 5 s, before a load balancer's usual 60 s idle timeout.
 */
import { intFrom } from './kinds.js';

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const HttpServerTuning = {
  BODY_TIMEOUT_MS: intFrom(5_000, 10)
    .describe(
      'a body not complete this long after its headers gets 408 `request_timeout` problem+json ' +
        'with `Connection: close` (never a 503: the request deadline starts once the body is in)',
    )
    .meta({ why: 'a slow-client bound; tests shorten it to reach the 408 path' }),
  HTTP_HEADERS_TIMEOUT_MS: intFrom(10_000, 10)
    .describe(
      "headers not complete this long after the first byte get Node's plain 408 and the " +
        'connection closed; checked every quarter of this, at most every second ' +
        '(src/http/server-options.ts)',
    )
    .meta({ why: 'a slow-client bound; tests shorten it to reach the 408 path' }),
  HTTP_REQUEST_TIMEOUT_MS: intFrom(30_000, 10)
    .describe(
      "the whole request (headers and body) not received by then gets Node's plain 408 and the " +
        'connection closed (raised to the headers timeout if lower)',
    )
    .meta({ why: 'a slow-client bound; tests shorten it to reach the 408 path' }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: intFrom(65_000, 0)
    .describe(
      'an idle keep-alive connection is closed after this (Node adds 1 s of grace); above a ' +
        "fronting proxy's idle timeout (60 s for most), so the proxy closes first and never " +
        'reuses a connection the server is closing',
    )
    .meta({ why: "above every usual proxy's 60 s idle timeout; tests shorten it" }),
};
