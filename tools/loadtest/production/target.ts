/**
 * The service under test, one per transport, on the same keyspace and Redis and with the same
 * settings (`--env` pairs included):
 * - `http`: the real server in a child process (tools/walk/service-process.ts) behind a pool of
 *   loopback connections; its CPU is the child's own (IPC `cpu`);
 * - `direct`: createRegrid (src/embed.ts: the server's wiring minus the process: no listener, no
 *   change-stream sweeper) in this process, called through `app.request()`; its CPU is this
 *   process's, load generator included, so only the HTTP figure is the service's alone.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Client } from 'cassandra-driver';
import { createRegrid } from '../../../src/embed.js';
import { startService } from '../../walk/service-process.js';
import { appSend, poolSend, type Send } from './client.js';

export interface Target {
  readonly transport: 'direct' | 'http';
  readonly send: Send;
  readonly secret: string;
  readonly serviceSecret: string;
  /** The service's CPU time so far, microseconds (see the header for what it includes). */
  cpuUs(): Promise<number>;
  metrics(): Promise<string>;
  close(): Promise<void>;
}

export interface TargetSettings {
  readonly keyspace: string;
  readonly redisUrl: string;
  readonly contactPoints: string;
  readonly connections: number;
  readonly env: Readonly<Record<string, string>>;
}

export async function openTarget(
  transport: 'direct' | 'http',
  client: Client,
  s: TargetSettings,
  log: (line: string) => void,
): Promise<Target> {
  const secret = randomBytes(24).toString('hex');
  const serviceSecret = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    CASSANDRA_CONTACT_POINTS: s.contactPoints,
    CASSANDRA_KEYSPACE: s.keyspace,
    REDIS_URL: s.redisUrl,
    AUTH_JWT_SECRET: secret,
    AUTH_SERVICE_JWT_SECRET: serviceSecret,
    CURSOR_SECRET: randomBytes(24).toString('hex'),
    ...s.env,
  };
  if (transport === 'http') {
    const svc = await startService(env, log);
    const pool = poolSend(svc.base, s.connections);
    return {
      transport,
      send: pool.send,
      secret,
      serviceSecret,
      cpuUs: () => svc.cpuUs(),
      metrics: async () => (await pool.send('GET', '/metrics', {})).text,
      async close() {
        await pool.close();
        await svc.stop();
      },
    };
  }
  const redis =
    env.REDIS_URL === 'none' ? undefined : new Redis(env.REDIS_URL!, { lazyConnect: false });
  // The service's warnings (late answers under load) are counted, not printed per request.
  let warnings = 0;
  const regrid = await createRegrid({
    cassandra: client,
    redis,
    config: env,
    log: () => void warnings++,
  });
  const send = appSend(regrid.app);
  return {
    transport,
    send,
    secret,
    serviceSecret,
    cpuUs: async () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    },
    metrics: async () => (await send('GET', '/metrics', {})).text,
    async close() {
      if (warnings > 0) log(`[direct] the service logged ${warnings} warnings`);
      await regrid.close();
      redis?.disconnect();
    },
  };
}
