/**
 * The process and its HTTP front (config.ts): environment, listener, logs, request bounds,
 * readiness and shutdown. The server's socket timeouts are http.ts.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const ServerConfig = {
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      '`production`: nothing is provisioned or generated; the server exits at once, naming every ' +
        'one of `CASSANDRA_CONTACT_POINTS`, `REDIS_URL` (or `REDIS_URL=none`) and ' +
        '`AUTH_JWT_SECRET` (with `AUTH_JWKS_URL`: `CURSOR_SECRET`) that is unset ' +
        '([operating.md](operating.md) "Production")',
    ),
  HOST: z.string().default('127.0.0.1').describe('HTTP listener address (`0.0.0.0` in containers)'),
  PORT: intFrom(8080, 0, 65535).describe('HTTP listener port (0 = any free port)'),
  ADMIN_PORT: z.coerce
    .string()
    .regex(/^(?:(?:\[[0-9a-fA-F:.]+\]|[^:\s]+):)?[0-9]{1,5}$/)
    .optional()
    .meta({
      allowed:
        '`port` or `host:port` (port 0..65535; the host defaults to `127.0.0.1`: keep it off the public network)',
      description:
        'a second listener for the operator: set, `/metrics`, `/docs` and the web editor move ' +
        'there (with the API the editor calls) and `PORT` serves the API alone, ' +
        '`/openapi.json` and the health checks included ([operating.md](operating.md) ' +
        '"Admin listener"); 0 = any free port',
      unset: 'one listener serves everything',
    }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level of the JSON logs; one line per request at `info`'),
  AUDIT_EVERY_S: intFrom(0, 0).describe(
    'run the consistency audit in the server every this many seconds and export ' +
      '`regrid_audit_findings{kind}` (0 = never)',
  ),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const ServerTuning = {
  ADMIN_HOST: z
    .string()
    .default('127.0.0.1')
    .describe("the admin listener's address")
    .meta({ why: 'merged into `ADMIN_PORT` (`host:port`)' }),
  BODY_LIMIT_BYTES: intFrom(16 * 1024, 256)
    .describe(
      'request bodies above this get 413 problem+json: by `Content-Length` before the body is ' +
        'read, else as soon as a chunked body passes it; the answer carries `Connection: close` ' +
        'and the rest is not read',
    )
    .meta({
      why: "the API's bodies are small and bounded by its schemas; tests lower it to reach the 413 path",
    }),
  REQUEST_DEADLINE_READ_MS: intFrom(1_000, 10)
    .describe('a `/v1` read (GET/HEAD) not answered by then gets 503')
    .meta({ why: "the service's own latency budget; tests shorten it to reach the 503 path" }),
  REQUEST_DEADLINE_WRITE_MS: intFrom(2_000, 10)
    .describe('a `/v1` write (every other method) not answered by then gets 503')
    .meta({ why: "the service's own latency budget; tests shorten it to reach the 503 path" }),
  READYZ_TIMEOUT_MS: intFrom(500, 10)
    .describe('how long `/readyz` gives Cassandra and Redis to answer')
    .meta({ why: 'a probe detail; tests shorten it' }),
  SHUTDOWN_DRAIN_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(120_000)
    .optional()
    .meta({
      description:
        'after SIGTERM, `/readyz` answers 503 `draining` this long before the listener closes, ' +
        'so a balancer stops routing here first ([operating.md](operating.md)); SIGINT does not wait',
      unset: '`5000` in production, else `0`',
    })
    .meta({ why: "covers a balancer's usual health-check interval; tests shorten it" }),
};
