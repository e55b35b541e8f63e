/**
 * A private 3-master Redis Cluster for the cluster cache tests: three `redis-server --cluster-enabled
 * yes` on loopback ports (bus ports +10000), data in a temp folder, joined with
 * `redis-cli --cluster create`. No replicas: killing a master leaves its slots uncovered, the
 * harshest case (the cluster answers CLUSTERDOWN once the others agree it is gone). Every
 * process is started here and stopped here, by PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface OwnCluster {
  /** `redis+cluster://127.0.0.1:p1,…` */
  readonly url: string;
  readonly ports: readonly number[];
  /** The port of the master that serves `key` now (CLUSTER KEYSLOT + CLUSTER SLOTS). */
  masterOf(key: string): Promise<number>;
  /** The slot of `key`, as Redis computes it. */
  slotOf(key: string): Promise<number>;
  /** `cluster_state` (ok / fail) as the node on `port` sees it. */
  stateSeenBy(port: number): Promise<string>;
  /** SIGKILL the master on `port` (a crash: no goodbye to the cluster). */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connected(port: number): Promise<Redis> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  r.on('error', () => {}); // refused while the server starts; the loop retries
  for (let i = 0; ; i++) {
    try {
      await r.connect();
      await r.ping();
      return r;
    } catch (err) {
      if (i >= 50) throw err;
      await sleep(100);
    }
  }
}

/** True when something accepts a connection on the loopback port. */
const taken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export async function startOwnCluster(ports: readonly number[]): Promise<OwnCluster> {
  // A server already there (another run of this suite) would be joined instead of ours.
  for (const port of [...ports, ...ports.map((p) => p + 10_000)]) {
    if (await taken(port))
      throw new Error(`port ${port} is in use: is another cluster test running?`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'regrid-rcluster-'));
  const children = new Map<number, ChildProcess>();
  // Should the test process die before teardown, take our servers with it (by PID).
  const onExit = () => {
    for (const child of children.values()) if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  const exited = new Map<number, Promise<void>>();
  const admins: Redis[] = [];
  const stopAll = async () => {
    for (const a of admins.splice(0)) a.disconnect();
    for (const [port, child] of children) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      await exited.get(port);
    }
    children.clear();
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          // Short, so the survivors declare the killed master failed within the test.
          '--cluster-node-timeout',
          '1000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          nodeDir,
        ],
        { stdio: 'ignore' },
      );
      children.set(port, child);
      exited.set(port, new Promise<void>((resolve) => child.once('exit', () => resolve())));
    }
    for (const port of ports) admins.push(await connected(port));
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create: ${create.stdout}${create.stderr}`);
    // Every node must agree before a client may trust the slot map it is handed.
    for (let i = 0; ; i++) {
      const infos = await Promise.all(admins.map((a) => a.cluster('INFO')));
      if (infos.every((info) => /cluster_state:ok/.test(String(info)))) break;
      if (i >= 100) throw new Error(`cluster not ok after 10 s:\n${infos.join('\n')}`);
      await sleep(100);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  const live = () => admins.find((a) => a.status === 'ready')!;
  async function slotOf(key: string): Promise<number> {
    return Number(await live().cluster('KEYSLOT', key));
  }
  async function masterOf(key: string): Promise<number> {
    const slot = await slotOf(key);
    const ranges = await live().cluster('SLOTS');
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const master = range?.[2];
    if (!master) throw new Error(`slot ${slot} has no master`);
    return Number(master[1]);
  }

  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    slotOf,
    masterOf,
    async stateSeenBy(port) {
      const info = String(await admins[ports.indexOf(port)]!.cluster('INFO'));
      return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
    },
    async kill(port) {
      const i = ports.indexOf(port);
      admins[i]?.disconnect();
      const child = children.get(port)!;
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      await exited.get(port);
    },
    stop: stopAll,
  };
}
