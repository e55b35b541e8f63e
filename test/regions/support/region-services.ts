/**
 * One regrid service per region on the suite's private ring (regions-ring.ts), each a real
 * server process (tools/walk/child.ts: src/server.ts `startServer`) started INSIDE its region's
 * router namespace (`ip netns exec rg78-dck`, docs/regions.md "Address plan"), with a
 * redis-server of its own in the same namespace. So a DC partition (the WAN link down) cuts what
 * a real one cuts: Cassandra between the DCs, and service to service (a forwarded write), while
 * the test runner in the root namespace still reaches both services through the uplinks.
 *
 * `ip netns exec` execs its command, so the PID spawned is the server's (or redis-server's)
 * own: every process here is stopped by that PID.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { nodeAddress, regionAddress, regionNs } from '../../../tools/infra/netns.js';
import { sleep } from '../../../tools/infra/process-utils.js';
import { PLAN } from './regions-ring.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../../../tools/walk/child.ts', import.meta.url));
export const SERVICE_PORT = 18080;
const REDIS_PORT = 16379;
export const JWT_SECRET = 'regions-load-jwt-secret-0123456789';
export const SERVICE_SECRET = 'regions-load-service-secret-01234';

export const serviceBase = (dc: number) => `http://${regionAddress(PLAN, dc)}:${SERVICE_PORT}`;
export const peersSetting = () => `dc1=${serviceBase(1)},dc2=${serviceBase(2)}`;

export interface RegionProcess {
  readonly pid: number;
  stop(): Promise<void>;
}

function inRegion(dc: number, argv: string[], env: Record<string, string>, name: string) {
  const child = spawn('ip', ['netns', 'exec', regionNs(PLAN, dc), ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const proc: RegionProcess & { child: ChildProcess; stderr: () => string } = {
    pid: child.pid!,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid!, 'SIGTERM');
      const t = setTimeout(() => child.exitCode === null && process.kill(child.pid!, 'SIGKILL'), 15_000); // prettier-ignore
      await exited;
      clearTimeout(t);
    },
  };
  child.once('error', (e) => void (stderr += `${name}: ${e.message}`));
  return proc;
}

async function until(
  what: string,
  ok: () => Promise<boolean>,
  p: { stderr: () => string; child: ChildProcess },
  ms: number,
) {
  // prettier-ignore
  const t0 = Date.now();
  while (!(await ok().catch(() => false))) {
    if (p.child.exitCode !== null || Date.now() - t0 > ms) {
      throw new Error(`${what} did not start (exit ${p.child.exitCode}):\n${p.stderr()}`);
    }
    await sleep(250);
  }
}

/** A redis-server of the region's own, on its router address. */
export async function startRegionRedis(dc: number): Promise<RegionProcess> {
  const host = regionAddress(PLAN, dc);
  const argv = ['redis-server', '--bind', host, '--port', String(REDIS_PORT), '--protected-mode', 'no', '--save', '', '--appendonly', 'no']; // prettier-ignore
  const p = inRegion(dc, argv, {}, 'redis-server');
  await until(`redis in dc${dc}`, async () => {
    const r = new Redis({ host, port: REDIS_PORT, lazyConnect: true, maxRetriesPerRequest: 0 });
    r.on('error', () => undefined); // not up yet: the next look tries again
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } finally {
      r.disconnect();
    }
  }, p, 20_000); // prettier-ignore
  return p;
}

/**
 * The region's regrid service: its own DC's node as contact point and local DC, its own Redis,
 * REGRID_REGION=dc<k>; `env` adds the configuration under test (homes, peers, serial
 * consistency: a constant, which child.ts hands over as a code setting).
 */
export async function startRegionService(
  dc: number,
  keyspace: string,
  env: Record<string, string>,
): Promise<RegionProcess> {
  const p = inRegion(
    dc,
    [process.execPath, '--import', 'tsx', CHILD],
    {
      ...regionEnv(dc, keyspace),
      HOST: regionAddress(PLAN, dc),
      PORT: String(SERVICE_PORT),
      CASSANDRA_REPLICATION: 'NetworkTopologyStrategy:dc1=1,dc2=1',
      REDIS_URL: `redis://${regionAddress(PLAN, dc)}:${REDIS_PORT}`,
      AUTH_JWT_SECRET: JWT_SECRET,
      AUTH_SERVICE_JWT_SECRET: SERVICE_SECRET,
      WORKER_ID: String(7700 + dc), // configured: no lease to lose during a partition
      MOVE_RATE_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    'regrid',
  );
  const health = async () => (await fetch(`${serviceBase(dc)}/healthz`, { signal: AbortSignal.timeout(2000) })).ok; // prettier-ignore
  await until(`regrid in dc${dc}`, health, p, 180_000);
  return p;
}

/** The environment a region's processes connect with (its own DC's node, its region). */
export const regionEnv = (dc: number, keyspace: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/root',
  NODE_ENV: 'test',
  CASSANDRA_CONTACT_POINTS: nodeAddress(PLAN, dc, 1),
  CASSANDRA_LOCAL_DC: `dc${dc}`,
  CASSANDRA_KEYSPACE: keyspace,
  REGRID_REGION: `dc${dc}`,
  CURSOR_SECRET: 'regions-load-cursor-secret-0123456789',
});

/** `regrid <args>` (bin/regrid.mjs) run inside region dc's namespace; its exit code and output. */
export async function regridIn(dc: number, keyspace: string, args: readonly string[]) {
  const argv = ['netns', 'exec', regionNs(PLAN, dc), process.execPath, 'bin/regrid.mjs', ...args];
  try {
    const { stdout, stderr } = await promisify(execFile)('ip', argv, { cwd: ROOT, env: regionEnv(dc, keyspace), maxBuffer: 8 << 20 }); // prettier-ignore
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}
