/**
 * Raw clients a test opens next to the service's own (to inspect or seed the stores), with the
 * same TLS settings the product uses: under the TLS-only suite (tools/test-over-tls.ts) REDIS_URL
 * is `rediss://` and CASSANDRA_TLS is on, and a plain client would be refused or would trust
 * Node's built-in CAs instead of the test CA.
 */
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Config } from '../../../src/config/config.js';
import { redisTlsOf } from '../../../src/cache/redis-client.js';
import { tlsOptionsOf } from '../../../src/tls-options.js';

/** An ioredis client on `url` (REDIS_URL by default), over TLS with REDIS_TLS_* if `rediss://`. */
export function rawRedis(
  config: Config,
  options: RedisOptions = {},
  url = config.REDIS_URL,
): Redis {
  const tls = /^rediss:/i.test(url) ? { tls: redisTlsOf(config) } : {};
  return new Redis(url, { ...tls, ...options });
}

/** The cassandra-driver `sslOptions` CASSANDRA_TLS_* ask for, to spread into a host's own Client. */
export function cassandraSsl(config: Config): { sslOptions?: ConnectionOptions } {
  if (!config.CASSANDRA_TLS) return {};
  const files = {
    caFile: config.CASSANDRA_TLS_CA_FILE,
    certFile: config.CASSANDRA_TLS_CERT_FILE,
    keyFile: config.CASSANDRA_TLS_KEY_FILE,
    verifyHostname: config.CASSANDRA_TLS_VERIFY_HOSTNAME,
    serverName: config.CASSANDRA_TLS_SERVERNAME,
  };
  return { sslOptions: tlsOptionsOf(files, 'CASSANDRA_TLS') };
}

/** The scheme a URL to a plain TCP proxy in front of REDIS_URL's server needs (`rediss` over TLS). */
export const redisSchemeOf = (config: Config): string =>
  /^rediss:/i.test(config.REDIS_URL) ? 'rediss' : 'redis';
