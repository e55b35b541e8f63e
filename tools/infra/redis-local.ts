/**
 * Local Redis for development and tests: if nothing answers at REDIS_URL, the URL points at this
 * machine and `redis-server` is on PATH, start one (daemonized, no persistence) and wait for PING.
 * Remote URLs are never provisioned; a missing Redis is then the service's degraded mode. Nor is
 * a Redis Cluster: its seeds are only probed (building one is the operator's job, docs/cache.md),
 * nor sentinels (probed) or a TLS Redis (not probed: PING here is plain text).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../src/config/config.js';
import { redisTargetOf } from '../../src/redis-target.js';
import { regridHome } from './cassandra-files.js';
import { findOnPath, isLoopbackHost, probeTcp, sleep, tailFile } from './process-utils.js';

export interface RedisTarget {
  readonly url: string;
  /** 'reused' = something already answered; 'started' = we launched redis-server; 'absent' = neither. */
  readonly origin: 'reused' | 'started' | 'absent';
  readonly detail: string;
}

/**
 * Sends a RESP PING and resolves true on any RESP reply (`+PONG`, or `-NOAUTH` from a server that
 * wants a password: it is up either way). Plain socket: no client library, no reconnect loops.
 */
export function redisAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return probeTcp(host, port, timeoutMs, (socket, done) => {
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (buf) => done(buf.length > 0 && (buf[0] === 0x2b || buf[0] === 0x2d)));
  });
}

function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(u.port || 6379) };
}

export async function ensureRedis(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REGRID_HOME'>,
  log: (line: string) => void = (l) => console.log(`[redis] ${l}`),
): Promise<RedisTarget> {
  const url = config.REDIS_URL;
  const target = redisTargetOf(config);
  if (target.kind === 'cluster') {
    const seeds = target.nodes.map((n) => `${n.host}:${n.port}`).join(', ');
    for (const n of target.nodes) {
      if (await redisAnswers(n.host, n.port))
        return { url, origin: 'reused', detail: `Redis Cluster answers at ${n.host}:${n.port}` };
    }
    return { url, origin: 'absent', detail: `no Redis Cluster seed answers (${seeds})` };
  }
  // Sentinels and TLS are an operator's set-up: probed (plain PING), never provisioned.
  if (/^rediss:/i.test(url)) {
    return { url, origin: 'absent', detail: 'a TLS Redis (rediss://) is not provisioned' };
  }
  if (target.kind === 'sentinel') {
    const n = target.sentinels[0]!;
    return (await redisAnswers(n.host, n.port))
      ? { url, origin: 'reused', detail: `a sentinel answers at ${n.host}:${n.port}` }
      : { url, origin: 'absent', detail: `no sentinel answers at ${n.host}:${n.port}` };
  }
  const { host, port } = hostPort(url);
  if (await redisAnswers(host, port))
    return { url, origin: 'reused', detail: `Redis answers at ${host}:${port}` };

  if (!isLoopbackHost(host)) {
    return {
      url,
      origin: 'absent',
      detail: `nothing answers at ${host}:${port} (remote: not provisioned)`,
    };
  }
  const bin = findOnPath('redis-server');
  if (!bin) {
    return {
      url,
      origin: 'absent',
      detail: `nothing answers at ${host}:${port} and redis-server is not on PATH`,
    };
  }

  const dir = join(regridHome(config), 'redis');
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, `redis-${port}.log`);
  // A cache: no RDB snapshots, no AOF. Loopback only. --daemonize returns once the fork is done.
  const res = spawnSync(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      host === 'localhost' ? '127.0.0.1' : host,
      '--daemonize',
      'yes',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--pidfile',
      join(dir, `redis-${port}.pid`),
      '--logfile',
      logFile,
    ],
    { encoding: 'utf8' },
  );
  if (res.status !== 0) {
    throw new Error(
      `redis-server failed to start (exit ${res.status}): ${res.stderr || res.stdout}`,
    );
  }
  log(`started redis-server on ${host}:${port} (no persistence; log ${logFile})`);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await redisAnswers(host, port))
      return { url, origin: 'started', detail: `started redis-server on ${host}:${port}` };
    await sleep(100);
  }
  throw new Error(
    `redis-server did not answer PING within 10s; log tail:\n${tailFile(logFile, 20)}`,
  );
}
