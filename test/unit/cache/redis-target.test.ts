import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { redisTargetOf } from '../../../src/redis-target.js';

const target = (env: Record<string, string>) => redisTargetOf(loadConfig(env));

describe('REDIS_URL / REDIS_CLUSTER_NODES', () => {
  it('a plain URL stays a single Redis, handed to ioredis as it is', () => {
    expect(target({})).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    expect(target({ REDIS_URL: 'rediss://:pw@cache:6380/4?family=6' })).toEqual({
      kind: 'single',
      url: 'rediss://:pw@cache:6380/4?family=6',
    });
  });

  it('redis+cluster:// names the seed nodes, with credentials and TLS', () => {
    expect(target({ REDIS_URL: 'redis+cluster://127.0.0.1:7001,127.0.0.1:7002' })).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7001 },
        { host: '127.0.0.1', port: 7002 },
      ],
      tls: false,
    });
    expect(target({ REDIS_URL: 'rediss+cluster://app:p%40ss@[::1]:7001/0' })).toEqual({
      kind: 'cluster',
      nodes: [{ host: '::1', port: 7001 }],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('REDIS_CLUSTER_NODES replaces the hosts; REDIS_URL lends credentials and TLS', () => {
    expect(
      target({ REDIS_URL: 'rediss://:secret@ignored:6379', REDIS_CLUSTER_NODES: 'a:1, b:2' }),
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      password: 'secret',
      tls: true,
    });
  });

  it.each([
    [{ REDIS_URL: 'redis+cluster://127.0.0.1:7001/3' }, /no database 3/],
    [{ REDIS_URL: 'redis+cluster://127.0.0.1' }, /bad cluster node '127.0.0.1'/],
    [{ REDIS_URL: 'redis+cluster://' }, /at least one host:port/],
    [{ REDIS_URL: 'redis+cluster://a:1?x=1' }, /bad cluster URL/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379/4', REDIS_CLUSTER_NODES: 'a:1' }, /no database 4/],
    [{ REDIS_CLUSTER_NODES: 'a' }, /bad cluster node 'a'/],
    [{ REDIS_URL: 'http://x:1', REDIS_CLUSTER_NODES: 'a:1' }, /bad scheme 'http'/],
  ])('rejects %j at start-up', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('REDIS_SENTINELS / REDIS_SENTINEL_MASTER', () => {
  it('names the sentinels and the primary; REDIS_URL lends credentials, database and TLS', () => {
    expect(target({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'main' })).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
      name: 'main',
      db: 0,
      tls: false,
    });
    expect(
      target({
        REDIS_URL: 'rediss://app:p%40ss@ignored:6379/3',
        REDIS_SENTINELS: 's1:26379, [::1]:26380',
        REDIS_SENTINEL_MASTER: 'grid-cache',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'grid-cache',
      username: 'app',
      password: 'p@ss',
      db: 3,
      tls: true,
      sentinelPassword: 'sentinel-secret',
    });
  });

  it.each([
    [{ REDIS_SENTINELS: 's1:26379' }, /needs REDIS_SENTINEL_MASTER/],
    [{ REDIS_SENTINEL_MASTER: 'main' }, /needs REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: 's1', REDIS_SENTINEL_MASTER: 'main' }, /bad sentinel 's1'/],
    [
      { REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: 'a:1' },
      /exclude each other/,
    ],
    [
      { REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_MASTER: 'm', REDIS_URL: 'redis+cluster://a:1' },
      /exclude each other/,
    ],
    [
      { REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_MASTER: 'm', REDIS_URL: 'http://x:1' },
      /bad scheme/,
    ],
    [
      { REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_MASTER: 'm', REDIS_URL: 'redis://x:1/a' },
      /bad database/,
    ],
    [{ REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_MASTER: 'a b' }, /REDIS_SENTINEL_MASTER/],
  ])('rejects %j at start-up', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('TLS settings (CASSANDRA_TLS_*, REDIS_TLS_*)', () => {
  it.each([
    [
      { CASSANDRA_TLS_CA_FILE: '/ca.pem' },
      /CASSANDRA_TLS_CA_FILE: set, but CASSANDRA_TLS is false/,
    ],
    [{ CASSANDRA_TLS_SERVERNAME: 'db' }, /CASSANDRA_TLS_SERVERNAME: set, but CASSANDRA_TLS/],
    [
      { CASSANDRA_TLS: 'true', CASSANDRA_TLS_CERT_FILE: '/c.pem' },
      /CASSANDRA_TLS_KEY_FILE: a client/,
    ],
    [
      { CASSANDRA_TLS: 'true', CASSANDRA_TLS_KEY_FILE: '/c.key' },
      /CASSANDRA_TLS_CERT_FILE: a client/,
    ],
    [{ REDIS_TLS_CA_FILE: '/ca.pem' }, /REDIS_TLS_CA_FILE: set, but REDIS_URL is not rediss/],
    [{ REDIS_URL: 'rediss://h:1', REDIS_TLS_KEY_FILE: '/k' }, /REDIS_TLS_CERT_FILE: a client/],
  ])('rejects %j at start-up', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('takes them with TLS on (rediss, rediss+cluster, CASSANDRA_TLS=true)', () => {
    const files = { CA_FILE: '/ca.pem', CERT_FILE: '/c.pem', KEY_FILE: '/c.key' };
    const env = (prefix: string) =>
      Object.fromEntries(Object.entries(files).map(([k, v]) => [`${prefix}_TLS_${k}`, v]));
    expect(() => loadConfig({ CASSANDRA_TLS: 'true', ...env('CASSANDRA') })).not.toThrow();
    expect(() => loadConfig({ REDIS_URL: 'rediss://h:1', ...env('REDIS') })).not.toThrow();
    const cluster = { REDIS_URL: 'rediss+cluster://h:1', ...env('REDIS') };
    expect(() => loadConfig(cluster)).not.toThrow();
    expect(loadConfig({}).CASSANDRA_TLS_VERIFY_HOSTNAME).toBe(true);
    expect(loadConfig({}).REDIS_TLS_VERIFY_HOSTNAME).toBe(true);
  });
});
