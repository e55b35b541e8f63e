import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
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
