/**
 * Redis (config.ts): where it is and how long this process waits for it. Redis is an
 * optimisation; the service keeps working without it (cache/redis.ts, docs/cache.md).
 */
import { z } from 'zod';
import { csv, intFrom } from './kinds.js';

export const RedisConfig = {
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .meta({
      description:
        'Redis (the service degrades while it is down): `redis[s]://[user:pass@]host:port[/db]`, ' +
        'or a cluster `redis[s]+cluster://[user:pass@]h:p,h:p`; `none` = no Redis at all: no ' +
        'cache, no move rate limit. Production has no default: set a URL or `none`',
      allowed: 'a Redis URL, or `none`',
    }),
  REDIS_CLUSTER_NODES: csv().describe(
    "Redis Cluster seeds `host:port,...` (they replace `REDIS_URL`'s hosts); keys of one " +
      'profile share a hash slot (docs/cache.md "Redis Cluster")',
  ),
  REDIS_SENTINELS: csv().describe(
    'Redis Sentinel: the sentinels `host:port,...` to ask for the current primary of ' +
      "`REDIS_SENTINEL_MASTER` (they replace `REDIS_URL`'s host, which still lends its " +
      'credentials, database and TLS); a failover is followed by itself ' +
      '([operating.md](operating.md) "Redis Sentinel")',
  ),
  REDIS_SENTINEL_MASTER: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/)
    .optional()
    .meta({
      description:
        "the primary's name in the sentinels' configuration (`sentinel monitor <name> …`)",
      unset: 'required with `REDIS_SENTINELS`',
    }),
  REDIS_SENTINEL_PASSWORD: z.string().optional().meta({
    description: "the sentinels' own password (`requirepass` in sentinel.conf)",
    unset: 'none',
  }),
  REDIS_TLS_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .meta({
      allowed: 'a file path',
      description:
        "PEM CA bundle the server's certificate must chain to (a `rediss://` URL; with " +
        'Sentinel, the sentinels are reached over TLS too)',
      unset: "Node's built-in CAs",
    }),
  REDIS_TLS_CERT_FILE: z
    .string()
    .min(1)
    .optional()
    .meta({
      allowed: 'a file path',
      description:
        'PEM client certificate, for a server that requires one (`tls-auth-clients`); with ' +
        '`REDIS_TLS_KEY_FILE`',
      unset: 'no client certificate',
    }),
  REDIS_TLS_KEY_FILE: z.string().min(1).optional().meta({
    description: 'PEM key of that certificate (unencrypted)',
    allowed: 'a file path',
  }),
  REDIS_TLS_SERVERNAME: z
    .string()
    .min(1)
    .optional()
    .meta({
      allowed: 'a host name, or `*`',
      description:
        "the name checked against the server's certificate (and sent as SNI); `*` checks the " +
        'chain only (no name)',
      unset: 'the host connected to',
    }),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const RedisTuning = {
  REDIS_TLS_VERIFY_HOSTNAME: z
    .stringbool()
    .default(true)
    .describe(
      "check that the server's certificate names the host connected to (or " +
        '`REDIS_TLS_SERVERNAME`); `false` checks the chain only',
    )
    .meta({ why: 'merged into `REDIS_TLS_SERVERNAME` (`*` = check the chain only)' }),
  REDIS_TIMEOUT_MS: intFrom(150, 10)
    .describe('bound on every Redis call')
    .meta({ why: 'a cache call must cost less than the read it saves; tests widen it' }),
  REDIS_BREAKER_FAILURES: intFrom(3, 1)
    .describe(
      'after this many consecutive Redis failures, skip Redis for `REDIS_BREAKER_COOLDOWN_MS`',
    )
    .meta({ why: 'a breaker detail; tests shorten it' }),
  REDIS_BREAKER_COOLDOWN_MS: intFrom(1000, 10)
    .describe('the cool-down of that breaker')
    .meta({ why: 'a breaker detail; tests shorten it' }),
  REDIS_REPAIR_PROBE_MS: intFrom(100, 10, 60_000)
    .describe(
      'while invalidations Redis missed are owed, PING it this often; at the first answer they ' +
        'are applied, before this process reads through Redis again (the staleness bound after ' +
        'a Redis stall)',
    )
    .meta({ why: 'a repair detail; tests shorten it' }),
  CACHE_REPAIR_MAX_PROFILES: intFrom(10_000, 1)
    .describe(
      'profiles whose missed invalidation a process remembers; past that it deletes every ' +
        'summary and lease instead (SCAN)',
    )
    .meta({ why: 'a memory bound; tests lower it to reach the SCAN path' }),
};
