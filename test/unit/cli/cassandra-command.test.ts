/**
 * `regrid cassandra status | up --nodes 3 | down` on a private REGRID_HOME and private ports,
 * with a stand-in for the single node: a process whose command line names CassandraDaemon (what
 * the pidfile check looks for) and that holds the node's CQL port. No JVM is started: the ring's
 * start is refused because that port is taken, which is the behaviour under test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { runDevCli as runCli } from '../../../tools/cli/dev-commands.js';
import { withLocalRing } from '../../../tools/infra/ring-target.js';
import { isAlive, sleep, tcpOpen } from '../../../tools/infra/process-utils.js';

const PORTS = {
  CASSANDRA_PORT: '19742',
  CASSANDRA_STORAGE_PORT: '18200',
  CASSANDRA_JMX_PORT: '18300',
};
/** The private node's other ports, as the CLI takes them. */
const FLAGS = [
  '--storage-port',
  PORTS.CASSANDRA_STORAGE_PORT,
  '--jmx-port',
  PORTS.CASSANDRA_JMX_PORT,
];
const cli = (args: string[], io: Parameters<typeof runCli>[1]) => runCli([...args, ...FLAGS], io);
const home = mkdtempSync(join(tmpdir(), 'regrid-cli-ring-'));
const saved = { ...process.env };
let fake: ChildProcess;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

beforeAll(async () => {
  Object.assign(process.env, { CASSANDRA_PORT: PORTS.CASSANDRA_PORT, REGRID_HOME: home });
  delete process.env['CASSANDRA_CONTACT_POINTS'];
  const listen = `require('net').createServer().listen(${PORTS.CASSANDRA_PORT}, '127.0.0.1')`;
  fake = spawn(process.execPath, ['-e', listen, 'org.apache.cassandra.service.CassandraDaemon'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 50 && !(await tcpOpen('127.0.0.1', Number(PORTS.CASSANDRA_PORT), 200)); i++) {
    await sleep(100);
  }
  mkdirSync(join(home, 'cassandra', '5.0.8', 'ring'), { recursive: true });
  writeFileSync(join(home, 'cassandra', 'node.json'), JSON.stringify({ pid: fake.pid }));
});

afterAll(() => {
  if (fake.pid && isAlive(fake.pid)) fake.kill('SIGKILL');
  process.env = saved;
  rmSync(home, { recursive: true, force: true });
});

describe('regrid cassandra on a private home', () => {
  it('up --nodes 3 names the single node holding ring node 1’s port, and starts nothing', async () => {
    const c = capture();
    expect(await cli(['cassandra', 'up', '--nodes', '3'], c.io)).toBe(3);
    const text = c.err.join('\n');
    expect(text).toContain(`the single local node (pid ${fake.pid}`);
    expect(text).toContain(`127.0.0.1:${PORTS.CASSANDRA_PORT} (CASSANDRA_PORT)`);
    expect(text).toContain('--node single');
    expect(isAlive(fake.pid!)).toBe(true);
  });

  it('status --json shows the single node beside the ring, by pid', async () => {
    writeFileSync(join(home, 'cassandra', '5.0.8', 'ring', 'size'), '3\n');
    const c = capture();
    const code = await cli(['cassandra', 'status', '--json'], c.io);
    const status = JSON.parse(c.out.join(''));
    expect(status.home).toBe(home);
    expect(status.ring_size).toBe(3);
    expect(status.nodes.map((n: { node: string }) => n.node)).toEqual(['single', 'ring-1', 'ring-2', 'ring-3']); // prettier-ignore
    // Its JVM runs (the pidfile's process) but nothing speaks CQL there: starting, not up.
    expect(status.nodes[0]).toMatchObject({ pid: fake.pid, state: 'starting' });
    expect(status.nodes.slice(1).every((n: { state: string }) => n.state === 'down')).toBe(true);
    expect(code).toBe(3);
  }, 30_000);

  it('down --node ring leaves the single node; plain down stops it', async () => {
    const ring = capture();
    expect(await cli(['cassandra', 'down', '--node', 'ring'], ring.io)).toBe(0);
    expect(ring.out).toContain('ring: no node of it runs');
    expect(isAlive(fake.pid!)).toBe(true);
    const all = capture();
    expect(await cli(['cassandra', 'down'], all.io)).toBe(0);
    expect(all.out[0]).toMatch(new RegExp(`^single node: stopped pid ${fake.pid} \\(SIGTERM`));
    await sleep(200);
    expect(isAlive(fake.pid!)).toBe(false);
  }, 60_000);

  it('with a ring node running, npm start’s config is the whole ring at RF 3 in regrid_ring', async () => {
    // Ring node 2's stand-in (it needs no port: only its pidfile and command line are read).
    const node2 = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'CassandraDaemon'], { stdio: 'ignore' }); // prettier-ignore
    try {
      writeFileSync(join(home, 'cassandra', '5.0.8', 'ring', 'node2.json'), JSON.stringify({ pid: node2.pid })); // prettier-ignore
      await sleep(100);
      const lines: string[] = [];
      // As npm start sees it: no cluster named. (`npm test` runs this beside the integration
      // project, whose global setup puts its own CASSANDRA_* settings into the environment.)
      const env = { ...process.env };
      for (const k of ['CASSANDRA_CONTACT_POINTS', 'CASSANDRA_KEYSPACE', 'CASSANDRA_REPLICATION'])
        delete env[k];
      const config = withLocalRing(
        loadConfig(env, {
          CASSANDRA_STORAGE_PORT: PORTS.CASSANDRA_STORAGE_PORT,
          CASSANDRA_JMX_PORT: PORTS.CASSANDRA_JMX_PORT,
        }),
        (l) => lines.push(l),
      );
      expect(config.CASSANDRA_CONTACT_POINTS).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
      expect(config.CASSANDRA_KEYSPACE).toBe('regrid_ring');
      expect(config.CASSANDRA_REPLICATION).toEqual({ class: 'NetworkTopologyStrategy', datacenter1: 3 }); // prettier-ignore
      expect(lines).toEqual([expect.stringContaining('local 3-node ring runs under REGRID_HOME (1 of 3 nodes up)')]); // prettier-ignore
      // The single node's `up` does not "reuse" ring node 1's port: it names the ring.
      const up = capture();
      expect(await cli(['cassandra', 'up'], up.io)).toBe(0);
      expect(up.out[0]).toContain('the local ring runs under REGRID_HOME (1 of 3 nodes)');
    } finally {
      node2.kill('SIGKILL');
    }
  });
});
