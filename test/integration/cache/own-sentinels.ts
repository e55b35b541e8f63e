/**
 * A private Redis Sentinel set for the failover test (redis-sentinel.test.ts): a primary, a
 * replica and three sentinels (Debian's `redis-sentinel`, scripts/ensure-sentinel.sh) on free
 * loopback ports, each spawned in the foreground and stopped by its PID. With `certs` every one
 * of them is TLS-only (`port 0`, `tls-port`, client certificates required, `tls-replication`:
 * the replica's link to the primary and the sentinels' links to the servers and to each other
 * are TLS too), and the admin connections here present the client certificate.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findOnPath } from '../../../tools/infra/process-utils.js';
import {
  freePort,
  spawnOwn,
  until,
  type OwnProcess,
  type TestCerts,
} from '../support/own-processes.js';

export interface OwnSentinels {
  readonly master: string;
  readonly primary: OwnProcess;
  readonly primaryPort: number;
  readonly replicaPort: number;
  readonly sentinelPorts: readonly number[];
  /** A fresh admin connection (not connected yet; closed by stop() if still open). */
  admin(port: number): Redis;
  info(port: number, section: string): Promise<string>;
  /** The primary's port as one sentinel names it. */
  masterSeenBy(sentinelPort: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinels(master: string, certs?: TestCerts): Promise<OwnSentinels> {
  if (!findOnPath('redis-sentinel')) {
    throw new Error('redis-sentinel is not on PATH: run scripts/ensure-sentinel.sh (as root)');
  }
  const home = mkdtempSync(join(tmpdir(), 'regrid-sentinel-'));
  const procs: OwnProcess[] = [];
  const admins: Redis[] = [];
  const ports = new Set<number>();
  while (ports.size < 5) ports.add(await freePort());
  const [primaryPort, replicaPort, ...sentinelPorts] = [...ports] as [number, number, ...number[]];
  // The listening port, plain or TLS-only, as command-line words (`--x y`) or config lines.
  const listen = (port: number): string[][] =>
    certs
      ? [
          ['port', '0'],
          ['tls-port', String(port)],
          ['tls-cert-file', certs.serverCert],
          ['tls-key-file', certs.serverKey],
          ['tls-ca-cert-file', certs.ca],
          ['tls-auth-clients', 'yes'],
          ['tls-replication', 'yes'],
        ]
      : [['port', String(port)]];
  const tls = certs
    ? {
        tls: {
          ca: readFileSync(certs.ca),
          cert: readFileSync(certs.clientCert),
          key: readFileSync(certs.clientKey),
        },
      }
    : {};
  const admin = (port: number) => {
    const r = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null, lazyConnect: true, ...tls }); // prettier-ignore
    r.on('error', () => {});
    admins.push(r);
    return r;
  };
  const info = async (port: number, section: string) => {
    const r = admin(port);
    try {
      await r.connect();
      return await r.info(section);
    } finally {
      r.disconnect();
    }
  };
  const server = (port: number, extra: string[]) => {
    const d = join(home, String(port));
    mkdirSync(d);
    const args = [...listen(port).flatMap(([k, v]) => [`--${k}`, v!]), '--bind', '127.0.0.1'];
    const p = spawnOwn('redis-server', [...args, '--save', '', '--appendonly', 'no', '--dir', d, ...extra]); // prettier-ignore
    procs.push(p);
    return p;
  };
  const stop = async () => {
    for (const a of admins) a.disconnect();
    for (const p of procs.reverse()) await p.kill();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const primary = server(primaryPort, []);
    await until('the primary answers', async () => /redis_version/.test(await info(primaryPort, 'server'))); // prettier-ignore
    server(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
    await until('the replica is in sync', async () =>
      /master_link_status:up/.test(await info(replicaPort, 'replication')),
    );
    for (const port of sentinelPorts) {
      const conf = join(home, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          ...listen(port).map(([k, v]) => `${k} ${v}`),
          'bind 127.0.0.1',
          `dir ${home}`,
          `sentinel monitor ${master} 127.0.0.1 ${primaryPort} 2`,
          // Short, so the failover happens within the test: down after 1 s without an answer.
          `sentinel down-after-milliseconds ${master} 1000`,
          `sentinel failover-timeout ${master} 5000`,
          `sentinel parallel-syncs ${master} 1`,
          '',
        ].join('\n'),
      );
      procs.push(spawnOwn('redis-sentinel', [conf]));
    }
    // Each sentinel must know the replica and the two other sentinels before a failover can run.
    for (const port of sentinelPorts) {
      await until(
        `sentinel ${port} knows the replica and its peers`,
        async () => {
          const r = admin(port);
          try {
            await r.connect();
            const replicas = (await r.call('SENTINEL', 'REPLICAS', master)) as unknown[];
            const peers = (await r.call('SENTINEL', 'SENTINELS', master)) as unknown[];
            return replicas.length === 1 && peers.length === 2;
          } finally {
            r.disconnect();
          }
        },
        30_000,
      );
    }
    const masterSeenBy = async (sentinelPort: number) => {
      const r = admin(sentinelPort);
      try {
        await r.connect();
        const [, port] = (await r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', master)) as string[];
        return Number(port);
      } finally {
        r.disconnect();
      }
    };
    return { master, primary, primaryPort, replicaPort, sentinelPorts, admin, info, masterSeenBy, stop }; // prettier-ignore
  } catch (err) {
    await stop();
    throw err;
  }
}
