/**
 * Configuration: the only module that reads `process.env`. Parsed once at start-up with zod and
 * failing fast; everything else receives a typed `Config`.
 */
import { z } from 'zod';
import { AuthConfig, AuthTuning } from './auth.js';
import { CacheTuning } from './cache.js';
import { CassandraConfig, CassandraTuning } from './cassandra.js';
import { ChangesTuning } from './changes.js';
import { FlagsConfig, FlagsTuning } from './flags.js';
import { HttpServerTuning } from './http.js';
import { IdpConfig, IdpTuning, idpProblems } from './idp.js';
import { LocalNodeConfig, LocalNodeTuning } from './local.js';
import { RedisConfig, RedisTuning } from './redis.js';
import { RegionsConfig, RegionsTuning } from './regions.js';
import { ServerConfig, ServerTuning } from './server.js';
import { WritesConfig, WritesTuning } from './writes.js';
import { redisTargetProblem } from '../redis-target.js';
import { tlsFilesOf, tlsSettingsProblem } from '../tls-options.js';

/**
 * The environment variables, one concern per file (src/config/*.ts), in the order
 * docs/configuration.md lists them (`npm run gen:config-docs` writes its tables from these). Only
 * what an operator genuinely chooses is one: where the stores are, credentials, TLS, the
 * keyspace, consistency, ports, logs, tokens, the rate limit. A new concern: a file exporting its
 * shape, and one line here.
 */
export const CONFIG_GROUPS = [
  { title: 'Process and HTTP', shape: ServerConfig },
  { title: 'Cassandra', shape: CassandraConfig },
  { title: 'Local node (development and tests)', shape: LocalNodeConfig },
  { title: 'Redis', shape: RedisConfig },
  { title: 'Authentication', shape: AuthConfig },
  { title: 'Identity provider (JWKS)', shape: IdpConfig },
  { title: 'Writes', shape: WritesConfig },
  { title: 'Regions', shape: RegionsConfig },
  { title: 'Flags', shape: FlagsConfig },
] as const;

/**
 * Constants: settings no operator can choose better than the default, which only a test, a
 * benchmark or a measurement turns. Never read from the environment: `loadConfig`'s second
 * argument sets them (each says why it is a constant, `.meta({ why })`; docs/configuration.md
 * lists them too).
 */
export const TUNING_GROUPS = [
  { title: 'Process and HTTP', shape: ServerTuning },
  { title: 'HTTP server timeouts', shape: HttpServerTuning },
  { title: 'Cassandra', shape: CassandraTuning },
  { title: 'Local node (development and tests)', shape: LocalNodeTuning },
  { title: 'Redis', shape: RedisTuning },
  { title: 'Cache', shape: CacheTuning },
  { title: 'Authentication', shape: AuthTuning },
  { title: 'Identity provider (JWKS)', shape: IdpTuning },
  { title: 'Writes', shape: WritesTuning },
  { title: 'Regions', shape: RegionsTuning },
  { title: 'Change stream', shape: ChangesTuning },
  { title: 'Flags', shape: FlagsTuning },
] as const;

export const TUNING_NAMES: ReadonlySet<string> = new Set(
  TUNING_GROUPS.flatMap((g) => Object.keys(g.shape)),
);

export const ConfigSchema = z.object({
  ...ServerConfig,
  ...ServerTuning,
  ...HttpServerTuning,
  ...CassandraConfig,
  ...CassandraTuning,
  ...LocalNodeConfig,
  ...LocalNodeTuning,
  ...RedisConfig,
  ...RedisTuning,
  ...CacheTuning,
  ...AuthConfig,
  ...AuthTuning,
  ...IdpConfig,
  ...IdpTuning,
  ...WritesConfig,
  ...WritesTuning,
  ...RegionsConfig,
  ...RegionsTuning,
  ...ChangesTuning,
  ...FlagsConfig,
  ...FlagsTuning,
});

/** Checks across fields (kept off ConfigSchema, whose `.pick` needs a plain object). */
const CheckedConfig = ConfigSchema.transform(merged).superRefine((c, ctx) => {
  // A Redis target that cannot be read fails at start-up, not at the first cache call.
  const problem = redisTargetProblem(c);
  if (problem) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: problem });
  // TLS files that would go unused, or a certificate without its key, fail at start-up too.
  const tls = [
    tlsSettingsProblem(
      tlsFilesOf(c, 'CASSANDRA'),
      c.CASSANDRA_TLS,
      'CASSANDRA_TLS',
      'CASSANDRA_TLS is false',
    ),
    tlsSettingsProblem(
      tlsFilesOf(c, 'REDIS'),
      /^rediss[:+]/i.test(c.REDIS_URL),
      'REDIS_TLS',
      'REDIS_URL is not rediss://',
    ),
  ];
  for (const t of tls) {
    if (t) ctx.addIssue({ code: 'custom', path: [t.setting], message: t.message });
  }
  // One secret for both kinds would let a user token's signature pass as a service token's.
  if (c.AUTH_SERVICE_JWT_SECRET && c.AUTH_SERVICE_JWT_SECRET === c.AUTH_JWT_SECRET) {
    const message = 'must differ from AUTH_JWT_SECRET';
    ctx.addIssue({ code: 'custom', path: ['AUTH_SERVICE_JWT_SECRET'], message });
  }
  // Two listeners on one address: the second would fail to bind after the stores were opened.
  if (
    c.ADMIN_PORT !== undefined &&
    c.ADMIN_PORT !== 0 &&
    c.ADMIN_PORT === c.PORT &&
    c.ADMIN_HOST === c.HOST
  ) {
    ctx.addIssue({ code: 'custom', path: ['ADMIN_PORT'], message: 'must differ from PORT' });
  }
  for (const { path, message } of idpProblems(c))
    ctx.addIssue({ code: 'custom', path: [path], message });
  if (c.ADMIN_PORT !== undefined && c.ADMIN_PORT > 65535)
    ctx.addIssue({ code: 'custom', path: ['ADMIN_PORT'], message: 'port above 65535' });
});

/** The settings merged into others: `ADMIN_PORT=host:port`, `*_TLS_SERVERNAME=*`, the serial consistency. */
function merged(c: z.output<typeof ConfigSchema>) {
  const admin = c.ADMIN_PORT?.match(/^(?:(.+):)?([0-9]+)$/);
  const chainOnly = (name: string | undefined) => name === '*';
  return {
    ...c,
    ADMIN_PORT: admin ? Number(admin[2]) : undefined,
    ADMIN_HOST: admin?.[1]?.replace(/^\[(.*)\]$/, '$1') ?? c.ADMIN_HOST,
    CASSANDRA_TLS_VERIFY_HOSTNAME:
      c.CASSANDRA_TLS_VERIFY_HOSTNAME && !chainOnly(c.CASSANDRA_TLS_SERVERNAME),
    CASSANDRA_TLS_SERVERNAME: chainOnly(c.CASSANDRA_TLS_SERVERNAME)
      ? undefined
      : c.CASSANDRA_TLS_SERVERNAME,
    REDIS_TLS_VERIFY_HOSTNAME: c.REDIS_TLS_VERIFY_HOSTNAME && !chainOnly(c.REDIS_TLS_SERVERNAME),
    REDIS_TLS_SERVERNAME: chainOnly(c.REDIS_TLS_SERVERNAME) ? undefined : c.REDIS_TLS_SERVERNAME,
    CASSANDRA_SERIAL_CONSISTENCY:
      c.CASSANDRA_SERIAL_CONSISTENCY ??
      (c.CASSANDRA_CONSISTENCY === 'quorum' || c.CASSANDRA_CONSISTENCY === 'all'
        ? 'serial'
        : 'localSerial'),
  };
}

export type Config = z.output<typeof CheckedConfig>;

/** What code (tests, benchmarks, an embedding host) may set: any setting, constants included. */
export type Settings = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A setting missing or wrong: nothing was done. Every entry exits 2 on it (cli/exit-codes.ts,
 * docs/cli.md), whether config.ts or a start-up check (bootstrap.ts) found it.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/**
 * The configuration from `env` (the environment variables, CONFIG_GROUPS) and `settings` (set by
 * code: tests, benchmarks, an embedding host; the only way to change a constant of
 * TUNING_GROUPS). A constant's name in `env` fails: it is no longer read from there, and a
 * silently ignored value would mislead whoever set it.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  settings: Settings = {},
): Config {
  const stale = Object.keys(env).filter((k) => TUNING_NAMES.has(k) && env[k] !== undefined);
  if (stale.length > 0) {
    const names = stale.join(', ');
    throw new ConfigurationError(
      `invalid configuration: ${names} ${stale.length > 1 ? 'are' : 'is'} no longer read from ` +
        'the environment (a constant: docs/configuration.md "Constants"); unset it',
    );
  }
  const code = Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [k, v === undefined ? v : String(v)]),
  );
  const parsed = CheckedConfig.safeParse({ ...env, ...code });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigurationError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** REDIS_URL=none: run without Redis, said outright (production has no default Redis). */
export const NO_REDIS = 'none';

/**
 * What a production server must be told rather than defaulted or provisioned: where Cassandra is,
 * where Redis is (or REDIS_URL=none), and how user tokens are verified (the JWT secret, or an
 * identity provider's key set with its own CURSOR_SECRET). Every unset one, in that order.
 */
export function missingForProduction(env: Record<string, string | undefined> = process.env) {
  const unset = (name: string) => !env[name]?.trim();
  // With a key set there may be no shared secret to derive the cursor key from.
  const keySet = !unset('AUTH_JWKS_URL');
  const tokens = !keySet ? ['AUTH_JWT_SECRET'] : unset('AUTH_JWT_SECRET') ? ['CURSOR_SECRET'] : [];
  const missing = ['CASSANDRA_CONTACT_POINTS', 'REDIS_URL', ...tokens].filter(unset);
  // Cluster seeds or sentinels alone name a Redis too (redis-target.ts).
  const named = !unset('REDIS_CLUSTER_NODES') || !unset('REDIS_SENTINELS');
  return named ? missing.filter((n) => n !== 'REDIS_URL') : missing;
}
