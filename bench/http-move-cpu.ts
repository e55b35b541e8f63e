/**
 * `npx tsx bench/http-move-cpu.ts [--moves 6000] [--rounds 2] [--writers 16] [--against DIR]`: what a move over
 * HTTP costs each process on this machine. Starts the server (`tools/dev-start.ts` of this checkout, a
 * child process on a free port, keyspace `regrid_bench`, move rate limit 10⁹, request log to the
 * null device), creates one grid of 48 posts per writer through the API, warms up with 2,000
 * moves, then times `--moves` moves by `--writers` writers (16), each on its own grid and waiting
 * for each answer (the load tester's *uncontended* scenario). Prints moves/s and CPU milliseconds per move of the server,
 * this client, the local Cassandra node's JVM (this project's own node only) and Redis (when a
 * local redis-server runs).
 *
 * `--against DIR` runs a second checkout's server (another commit, with its node_modules) in
 * alternate rounds, the order swapping each round: the machine's speed drifts, so only figures
 * from the same run compare. `--env-b K=V,K=V` does the same with this checkout's server under
 * other settings (e.g. `CASSANDRA_CONNECTIONS_PER_HOST=1`); with `--against`, it applies to that one.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, TUNING_GROUPS } from '../src/config/config.js';
import { nodeLayout } from '../tools/infra/cassandra-files.js';
import { liveNodePid } from '../tools/infra/embedded-cassandra.js';
import { processCpuMs } from '../tools/infra/process-cpu.js';
import { RegridHttpDesign } from '../tools/loadtest/regrid-http-design.js';
import { ownGridMoves } from './own-grid-moves.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: {
    moves: { type: 'string', default: '6000' },
    rounds: { type: 'string', default: '2' },
    writers: { type: 'string', default: '16' },
    against: { type: 'string' },
    'env-b': { type: 'string' },
  },
});
const MOVES = Number(args.moves);
const WRITERS = Number(args.writers);
const POSTS = 48;
const SECRET = 'http-move-cpu-bench-secret-0123456789';
const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench' };
const session = await openLocalCassandra(config, () => {});
const jvm = liveNodePid(nodeLayout(config));
const redisPid = (() => {
  try {
    const out = execFileSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' });
    return Number(out.split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
})();

async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

const envB: Record<string, string> = Object.fromEntries(
  (args['env-b'] ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

async function startServer(
  dir: string,
  extraEnv: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  // The development entry (an older checkout given by --against started from src/main.ts).
  const entry = existsSync(join(dir, 'tools/dev-start.ts')) ? 'tools/dev-start.ts' : 'src/main.ts';
  // A constant is no environment variable: the development entry takes it as `--set`.
  const constants = new Set(TUNING_GROUPS.flatMap((g) => Object.keys(g.shape)));
  const isSet = (k: string) => entry === 'tools/dev-start.ts' && constants.has(k);
  const sets = Object.entries(extraEnv)
    .filter(([k]) => isSet(k))
    .flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const env = Object.fromEntries(Object.entries(extraEnv).filter(([k]) => !isSet(k)));
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...sets], {
    cwd: dir,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      AUTH_JWT_SECRET: SECRET,
      MOVE_RATE_LIMIT: '1000000000',
      CASSANDRA_KEYSPACE: 'regrid_bench',
      ...env,
    },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`the server in ${dir} exited (${child.exitCode})`);
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, base };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server in ${dir} did not answer within 30 s`);
}

/** Statements the server sent so far, by kind (its /metrics). */
async function statementsOf(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^regrid_cql_duration_seconds_count\{kind="(\w+)"\} (\d+)/gm))
    out[m[1]!] = Number(m[2]);
  return out;
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function measure(dir: string, extraEnv: Record<string, string>) {
  const { child, base } = await startServer(dir, extraEnv);
  try {
    const design = await RegridHttpDesign.create(base, SECRET, session.client, config);
    const stamp = BigInt(Date.now()) * 1000n;
    const grids = await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        const profileId = 8_000_000_000_000_000n + stamp + BigInt(i);
        return { profileId, posts: await design.createGrid(profileId, POSTS) };
      }),
    );
    const run = ownGridMoves(grids, (p, post, after) => design.move(p, post, after), 7);
    await run(2000);
    const statements0 = await statementsOf(base);
    const before = [processCpuMs(child.pid), processCpuMs(jvm), processCpuMs(redisPid)];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await run(MOVES);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const statements1 = await statementsOf(base);
    const per = (kind: string) => ((statements1[kind] ?? 0) - (statements0[kind] ?? 0)) / MOVES;
    const [server, node, redis] = [child.pid, jvm, redisPid].map(
      (pid, i) => (processCpuMs(pid) - before[i]!) / MOVES,
    );
    return {
      perS: (MOVES / ms) * 1000,
      server: server!,
      client: (cpu.user + cpu.system) / 1000 / MOVES,
      node: jvm === undefined ? undefined : node,
      redis: redisPid === undefined ? undefined : redis,
      reads: per('read'),
      cas: per('cas'),
    };
  } finally {
    await stopServer(child);
  }
}

const dirs = [{ name: 'this checkout', dir: process.cwd(), env: {} as Record<string, string> }];
if (args.against || args['env-b']) {
  const dir = args.against ?? process.cwd();
  const name = [args.against ?? 'this checkout', args['env-b']].filter(Boolean).join(' + ');
  dirs.push({ name, dir, env: envB });
}
const f = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(3));
try {
  console.log(`${MOVES} moves over HTTP per run, ${WRITERS} writers on their own grids`);
  console.log(
    'round | server | moves/s | server ms/move | client | Cassandra | Redis | reads/move | CAS/move',
  );
  for (let r = 1; r <= Number(args.rounds); r++) {
    for (const d of r % 2 === 1 ? dirs : [...dirs].reverse()) {
      const m = await measure(d.dir, d.env);
      console.log(
        `${r} | ${d.name} | ${m.perS.toFixed(0)} | ${f(m.server)} | ${f(m.client)} | ${f(m.node)} | ${f(m.redis)} | ${f(m.reads)} | ${f(m.cas)}`,
      );
    }
  }
} finally {
  await session.client.shutdown();
}
