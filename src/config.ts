/**
 * Configuration: the only module that reads `process.env`. Parsed once at start-up with zod and
 * failing fast; everything else receives a typed `Config`.
 */
import { z } from 'zod';
import { AuthConfig } from './config-auth.js';
import { CacheConfig } from './config-cache.js';
import { CassandraConfig } from './config-cassandra.js';
import { ChangesConfig } from './config-changes.js';
import { FlagsConfig } from './config-flags.js';
import { HttpServerConfig } from './config-http.js';
import { IdpConfig, idpProblems } from './config-idp.js';
import { LocalNodeConfig } from './config-local.js';
import { RedisConfig } from './config-redis.js';
import { RegionsConfig } from './config-regions.js';
import { ServerConfig } from './config-server.js';
import { WritesConfig } from './config-writes.js';
import { redisTargetProblem } from './redis-target.js';
import { tlsSettingsProblem } from './tls-options.js';

export { CQL_LIMIT_DEFAULTS } from './config-cassandra.js';

/**
 * Every setting, one concern per file (config-*.ts), in the order docs/configuration.md lists
 * them (`npm run gen:config-docs` writes its table from these). A new concern: a file exporting
 * its shape, and one line here.
 */
export const CONFIG_GROUPS = [
  { title: 'Process and HTTP', shape: ServerConfig },
  { title: 'HTTP server timeouts', shape: HttpServerConfig },
  { title: 'Cassandra', shape: CassandraConfig },
  { title: 'Local node (development and tests)', shape: LocalNodeConfig },
  { title: 'Redis', shape: RedisConfig },
  { title: 'Cache', shape: CacheConfig },
  { title: 'Authentication', shape: AuthConfig },
  { title: 'Identity provider (JWKS)', shape: IdpConfig },
  { title: 'Writes', shape: WritesConfig },
  { title: 'Regions', shape: RegionsConfig },
  { title: 'Change stream', shape: ChangesConfig },
  { title: 'Flags and self-checks', shape: FlagsConfig },
] as const;

export const ConfigSchema = z.object({
  ...ServerConfig,
  ...HttpServerConfig,
  ...CassandraConfig,
  ...LocalNodeConfig,
  ...RedisConfig,
  ...CacheConfig,
  ...AuthConfig,
  ...IdpConfig,
  ...WritesConfig,
  ...RegionsConfig,
  ...ChangesConfig,
  ...FlagsConfig,
});

/** Checks across fields (kept off ConfigSchema, whose `.pick` needs a plain object). */
const CheckedConfig = ConfigSchema.superRefine((c, ctx) => {
  // A Redis target that cannot be read fails at start-up, not at the first cache call.
  const problem = redisTargetProblem(c);
  if (problem) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: problem });
  // TLS files that would go unused, or a certificate without its key, fail at start-up too.
  const tls = [
    tlsSettingsProblem(
      {
        caFile: c.CASSANDRA_TLS_CA_FILE,
        certFile: c.CASSANDRA_TLS_CERT_FILE,
        keyFile: c.CASSANDRA_TLS_KEY_FILE,
        verifyHostname: c.CASSANDRA_TLS_VERIFY_HOSTNAME,
        serverName: c.CASSANDRA_TLS_SERVERNAME,
      },
      c.CASSANDRA_TLS,
      'CASSANDRA_TLS',
      'CASSANDRA_TLS is false',
    ),
    tlsSettingsProblem(
      {
        caFile: c.REDIS_TLS_CA_FILE,
        certFile: c.REDIS_TLS_CERT_FILE,
        keyFile: c.REDIS_TLS_KEY_FILE,
        verifyHostname: c.REDIS_TLS_VERIFY_HOSTNAME,
        serverName: c.REDIS_TLS_SERVERNAME,
      },
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
});

export type Config = z.infer<typeof ConfigSchema>;

/**
 * A setting missing or wrong: nothing was done. Every entry exits 2 on it (cli/exit-codes.ts,
 * docs/cli.md), whether config.ts or a start-up check (bootstrap.ts) found it.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = CheckedConfig.safeParse(env);
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
