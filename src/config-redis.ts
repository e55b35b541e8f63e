/**
 * Redis (config.ts): where it is and how long this process waits for it. Redis is an
 * optimisation; the service keeps working without it (cache/redis.ts, docs/cache.md).
 */
import { z } from 'zod';
import { csv, intFrom } from './config-kinds.js';

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
  REDIS_TIMEOUT_MS: intFrom(150, 10).describe('bound on every Redis call'),
  REDIS_BREAKER_FAILURES: intFrom(3, 1).describe(
    'after this many consecutive Redis failures, skip Redis for `REDIS_BREAKER_COOLDOWN_MS`',
  ),
  REDIS_BREAKER_COOLDOWN_MS: intFrom(1000, 10).describe('the cool-down of that breaker'),
  REDIS_REPAIR_PROBE_MS: intFrom(100, 10, 60_000).describe(
    'while invalidations Redis missed are owed, PING it this often; at the first answer they ' +
      'are applied, before this process reads through Redis again (the staleness bound after ' +
      'a Redis stall)',
  ),
  CACHE_REPAIR_MAX_PROFILES: intFrom(10_000, 1).describe(
    'profiles whose missed invalidation a process remembers; past that it deletes every ' +
      'summary, previous summary and lease instead (SCAN)',
  ),
};
