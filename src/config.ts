/**
 * Configuration: the only module that reads `process.env`. Parsed once at start-up with zod and
 * failing fast; everything else receives a typed `Config`.
 */
import { z } from 'zod';
import { AuthConfig } from './config-auth.js';
import { ChangesConfig } from './config-changes.js';
import { HttpServerConfig } from './config-http.js';
import { Replication } from './config-replication.js';
import { redisTargetProblem } from './redis-target.js';

const intFrom = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

const csv = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );

/** Also the Cql wrapper's limits when it is built without a Config (tests, tools). */
export const CQL_LIMIT_DEFAULTS = { maxInFlight: 1024, maxQueued: 8192 } as const;

export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  /** pino level of the JSON logs (one line per request at info). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Log lines gathered per stdout write (obs/logger.ts); 0 = one write per line. */
  LOG_BUFFER_BYTES: intFrom(4096, 0, 60_000),
  /** The longest a gathered line waits for its write. */
  LOG_FLUSH_MS: intFrom(250, 1, 10_000),
  /** Run the consistency audit every this many seconds in the server (0 = never). */
  AUDIT_EVERY_S: intFrom(0, 0),
  PORT: intFrom(8080, 0, 65535),
  BODY_LIMIT_BYTES: intFrom(16 * 1024, 256),
  /** A request not answered by then gets a 503 (reads: GET/HEAD; writes: everything else). */
  REQUEST_DEADLINE_READ_MS: intFrom(1_000, 10),
  REQUEST_DEADLINE_WRITE_MS: intFrom(2_000, 10),
  /** /readyz gives Cassandra and Redis this long to answer. */
  READYZ_TIMEOUT_MS: intFrom(500, 10),
  /**
   * On SIGTERM /readyz answers 503 this long before the listener closes, so a balancer stops
   * routing here first; unset: 5000 in production, 0 otherwise. SIGINT never waits.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).optional(),
  ...HttpServerConfig,

  // Cassandra. Empty contact points = provision/reuse the local Maven-assembled node.
  CASSANDRA_CONTACT_POINTS: csv,
  CASSANDRA_PORT: intFrom(9042, 1, 65535),
  CASSANDRA_LOCAL_DC: z.string().default('datacenter1'),
  CASSANDRA_KEYSPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/)
    .default('regrid'),
  CASSANDRA_REPLICATION: Replication,
  CASSANDRA_USERNAME: z.string().optional(),
  CASSANDRA_PASSWORD: z.string().optional(),
  CASSANDRA_CONSISTENCY: z
    .enum(['localQuorum', 'quorum', 'one', 'localOne', 'all'])
    .default('localQuorum'),
  CASSANDRA_SERIAL_CONSISTENCY: z.enum(['localSerial', 'serial']).default('localSerial'),
  /** Driver read timeout per statement: bounds how long a statement outlives its request. */
  CASSANDRA_REQUEST_TIMEOUT_MS: intFrom(2_000, 100),
  /** Reconnection schedule after a node is lost: exponential from BASE, capped at MAX. */
  CASSANDRA_RECONNECT_BASE_MS: intFrom(100, 10),
  CASSANDRA_RECONNECT_MAX_MS: intFrom(1_000, 10),
  /** Connections per local host; each carries at most 2,048 requests at once. */
  CASSANDRA_CONNECTIONS_PER_HOST: intFrom(2, 1, 32),
  /** Statements in flight per process (the rest queue), and how many may queue before a 503. */
  CASSANDRA_MAX_IN_FLIGHT: intFrom(CQL_LIMIT_DEFAULTS.maxInFlight, 1, 65_536),
  CASSANDRA_MAX_QUEUED: intFrom(CQL_LIMIT_DEFAULTS.maxQueued, 0, 1_000_000),
  /**
   * Production servers refuse an unmigrated keyspace (`regrid migrate` applies cql/); true = the
   * server applies the migrations itself at start-up. Development always applies them.
   */
  MIGRATE_ON_START: z.stringbool().default(false),
  /** Where the embedded node lives (jars, data, logs). */
  REGRID_HOME: z.string().default('.regrid'),
  CASSANDRA_VERSION: z.string().default('5.0.8'),
  /** Internode and JMX (nodetool) ports of the embedded node; loopback only. */
  CASSANDRA_STORAGE_PORT: intFrom(7000, 1, 65535),
  CASSANDRA_JMX_PORT: intFrom(7199, 1, 65535),
  CASSANDRA_HEAP: z
    .string()
    .regex(/^[0-9]+[MG]$/)
    .default('1G'),
  /** Local nodes `npm run cassandra:up` starts: 1, or a ring on 127.0.0.1..N (src/tools/infra/ring.ts). */
  CASSANDRA_NODES: intFrom(1, 1, 9),
  /** Local node's commit log: `periodic` (fast) or `group` (no acknowledged write lost on a kill). */
  CASSANDRA_COMMITLOG_SYNC: z.enum(['periodic', 'group']).default('periodic'),
  /** Local node's `paxos_variant`: v2 (2 round trips per LWT) or v1 (4); bench:paxos compares them. */
  CASSANDRA_PAXOS_VARIANT: z.enum(['v1', 'v2']).default('v2'),
  /** Integration-test stores: 'auto' = testcontainers if a Docker engine answers, else local. */
  REGRID_TEST_STORES: z.enum(['auto', 'containers', 'local']).default('auto'),

  // Redis: an optimisation; the service keeps working without it.
  /**
   * `redis[s]://[user:pass@]host:port[/db]`, or a cluster: `redis[s]+cluster://[user:pass@]h:p,h:p`;
   * `none` (NO_REDIS): no Redis at all, so no cache and no move rate limit.
   */
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Redis Cluster seed nodes (`host:port,...`); when set they replace REDIS_URL's hosts. */
  REDIS_CLUSTER_NODES: csv,
  REDIS_TIMEOUT_MS: intFrom(150, 10),

  ...AuthConfig,
  ...ChangesConfig,

  // IDs: a fixed worker number, or leased from Cassandra when unset.
  WORKER_ID: z.coerce.number().int().min(0).max(8191).optional(),

  // Writes
  CAS_MAX_ATTEMPTS: intFrom(8, 1, 100),
  /** Longest a write waits for this process's earlier writes to the same grid (0 = race). */
  WRITE_QUEUE_MAX_WAIT_MS: intFrom(2000, 0, 60_000),
  /**
   * Override rows of this process's last committed grid states kept in memory, so a snapshot of
   * such a grid reads only its static row (store/snapshot-memo.ts); 0 = always read every row.
   */
  SNAPSHOT_MEMO_ROWS: intFrom(200_000, 0, 10_000_000),
  /**
   * How long a grid's state this process committed last stays the start of its next write after
   * its write line went idle (service/write/carried-states.ts): that write is then its one
   * conditional batch, no read round; a stale guess costs one lost compare-and-set. 0 = off.
   */
  WRITE_CARRY_IDLE_MS: intFrom(30_000, 0, 3_600_000),
  /** Bound on the rows (overrides + remembered grid_posts IDs) those carried states hold. */
  WRITE_CARRY_MAX_ROWS: intFrom(200_000, 0, 10_000_000),
  /**
   * How long the grid_posts rows a write line has read answer its later planners (and the cache
   * pre-fill) without being read again (service/write/group-commit.ts); 0 = one round only.
   */
  WRITE_CARRY_MEMO_MS: intFrom(2_000, 0, 60_000),
  /**
   * Group commit (docs/write-paths.md): queued writes to one grid share one conditional batch, at
   * most this many (1 = every write commits alone), this many upserted rows and about this many
   * bytes (well under Cassandra's batch_size_fail_threshold, 50 KiB). A first write over a row
   * or byte bound still commits, alone.
   */
  WRITE_GROUP_MAX_WRITES: intFrom(32, 1, 256),
  WRITE_GROUP_MAX_ROWS: intFrom(200, 1, 1000),
  WRITE_GROUP_MAX_BYTES: intFrom(16 * 1024, 1024, 40 * 1024),
  RELABEL_POLICY: z.enum(['bounded', 'adaptive', 'doubling']).default('bounded'),
  /** Rows one move's write may carry; a larger relabel goes first, in steps (docs/key-engine.md). */
  MOVE_ROW_CAP: intFrom(256, 2, 4096),
  MOVE_RATE_LIMIT: intFrom(120, 1), // moves per window per profile
  MOVE_RATE_WINDOW_S: intFrom(60, 1),
  /**
   * The most concurrent moves of one profile one rate-limit call carries (cache/rate-credits.ts);
   * unset: 64, never more than the limit. 1 = one call per move.
   */
  MOVE_RATE_CREDIT_MAX: z.coerce.number().int().min(1).max(64).optional(),
  IDEMPOTENCY_TTL_S: intFrom(24 * 3600, 60),
  /** How long an in-flight Idempotency-Key blocks duplicates (409) before a retry may take over. */
  IDEMPOTENCY_LEASE_MS: intFrom(30_000, 1),

  // Operational flags (service/flags.ts, docs/ops/rollout.md). A decision uses values at most
  // 2 × FLAGS_REFRESH_MS old; the cap keeps that under the documented 2 s.
  FLAGS_REFRESH_MS: intFrom(500, 10, 900),
  /** The flags partition this process follows (one fleet, or a canary group of its own). */
  FLAGS_SCOPE: z.string().min(1).max(64).default('default'),
  /** Share of first-page reads (profiles without overrides) also read chronologically: 0..1. */
  SHADOW_READ_SAMPLE: z.coerce.number().min(0).max(1).default(0.01),
  /** Share of first-page cache hits re-read from Cassandra and compared: 0..1. */
  CACHE_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0.01),
  /** …but at most this many a second per process (the sampled path is a full page read). */
  CACHE_SAMPLE_MAX_PER_S: z.coerce.number().min(0).max(10_000).default(5),

  // Cache
  CACHE_ORDER_TTL_S: intFrom(3600, 1),
  CACHE_SUMMARY_TTL_S: intFrom(60, 1),
  CACHE_POST_TTL_S: intFrom(6 * 3600, 1),
  CACHE_LEASE_MS: intFrom(2000, 10),
  CACHE_LEASE_WAIT_MS: intFrom(300, 0),
  /**
   * How long this process trusts a rendered first page it holds without asking Redis: the bound
   * on how late another process's write shows here (docs/cache.md "Tiers"). 0 = no local tier.
   */
  CACHE_LOCAL_TTL_MS: intFrom(1000, 0, 10_000),
  /** Rendered first pages (Redis + local tier); 'false' serves hits from the cached order. */
  CACHE_RENDERED_PAGES: z.stringbool().default(true),
  /**
   * The writer pre-fills the committed state's order entry once the profile's commits pause this
   * long (a burst refills once)…
   */
  CACHE_REFILL_DEBOUNCE_MS: intFrom(50, 0, 10_000),
  /** …and at the latest this long after the first commit it waits for. */
  CACHE_REFILL_MAX_DELAY_MS: intFrom(500, 0, 60_000),
  /**
   * Profiles with at least this many overrides get reordered copies (docs/cache.md "Copies for
   * many overrides"); 0 = never.
   */
  COPY_MIN_OVERRIDES: intFrom(1000, 0),
  /** A burst of writes to such a profile is copied this long after its last write… */
  COPY_DEBOUNCE_MS: intFrom(500, 0, 60_000),
  /** …and at the latest this long after its first. */
  COPY_MAX_DELAY_MS: intFrom(5000, 0, 600_000),
  /** Memory of the process-local tier of rendered first pages. */
  CACHE_LOCAL_MAX_BYTES: intFrom(64 * 1024 * 1024, 0),
  /** Memcache-style fill leases; 'false' only to measure the thundering herd without them. */
  CACHE_LEASES: z.stringbool().default(true),
  /** After this many consecutive Redis failures, skip Redis for REDIS_BREAKER_COOLDOWN_MS. */
  REDIS_BREAKER_FAILURES: intFrom(3, 1),
  REDIS_BREAKER_COOLDOWN_MS: intFrom(1000, 10),
  /**
   * While invalidations Redis missed are owed, how often to PING it; the first answer runs them
   * before anything else reads through Redis (the staleness bound after a Redis stall).
   */
  REDIS_REPAIR_PROBE_MS: intFrom(100, 10, 60_000),
  /** Profiles whose missed invalidation is remembered; past that, every summary is swept. */
  CACHE_REPAIR_MAX_PROFILES: intFrom(10_000, 1),
});

/** Checks across fields (kept off ConfigSchema, whose `.pick` needs a plain object). */
const CheckedConfig = ConfigSchema.superRefine((c, ctx) => {
  // A Redis target that cannot be read fails at start-up, not at the first cache call.
  const problem = redisTargetProblem(c);
  if (problem) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: problem });
  // One secret for both kinds would let a user token's signature pass as a service token's.
  if (c.AUTH_SERVICE_JWT_SECRET && c.AUTH_SERVICE_JWT_SECRET === c.AUTH_JWT_SECRET) {
    const message = 'must differ from AUTH_JWT_SECRET';
    ctx.addIssue({ code: 'custom', path: ['AUTH_SERVICE_JWT_SECRET'], message });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = CheckedConfig.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** REDIS_URL=none: run without Redis, said outright (production has no default Redis). */
export const NO_REDIS = 'none';

/**
 * What a production server must be told rather than defaulted or provisioned: where Cassandra is,
 * where Redis is (or REDIS_URL=none), and the JWT secret. Every unset one, in that order.
 */
export function missingForProduction(env: Record<string, string | undefined> = process.env) {
  const unset = (name: string) => !env[name]?.trim();
  const missing = ['CASSANDRA_CONTACT_POINTS', 'REDIS_URL', 'AUTH_JWT_SECRET'].filter(unset);
  // Cluster seeds alone name a Redis too (redis-target.ts).
  return unset('REDIS_CLUSTER_NODES') ? missing : missing.filter((n) => n !== 'REDIS_URL');
}
