/**
 * One node vs the local 3-node ring (RF 3), the same seeded load-test workload back to back on
 * this machine: moves/s, move p50/p99, first-page read p50/p99 (under load), CAS retries, the
 * raw conditional-batch ceiling, and the same on the ring with one node down (killed before the
 * run, restarted after it); every figure also as a ratio to the one-node run.
 *
 * `npm run bench:ring -- [--moves 1500 --concurrency 8]`. Each run is `npm run loadtest` in a
 * child process with its JSON report. The single node is a private one (REGRID_HOME
 * /tmp/regrid-bench1, CQL 19442, 512M heap like each ring node), started for this and stopped
 * after by its pidfile; the ring is the cluster suite's (/tmp/regrid-cluster, CQL 19342), reused
 * when up, else started. Only one ring at a time; the shared node on 9042 is never touched.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const MOVES = arg('moves', 1500);
const CONCURRENCY = arg('concurrency', 8);

/** A private node: its home and CQL port (environment), its other ports and heap (constants, `--set`). */
interface Target {
  env: Record<string, string>;
  set: Record<string, string>;
}
const SINGLE: Target = {
  env: { REGRID_HOME: '/tmp/regrid-bench1', CASSANDRA_PORT: '19442', CASSANDRA_CONTACT_POINTS: '' },
  set: { CASSANDRA_STORAGE_PORT: '17800', CASSANDRA_JMX_PORT: '17899', CASSANDRA_HEAP: '512M' },
};
const RING: Target = {
  env: {
    REGRID_HOME: '/tmp/regrid-cluster',
    CASSANDRA_PORT: '19342',
    CASSANDRA_CONTACT_POINTS: '',
  },
  set: { CASSANDRA_STORAGE_PORT: '17400', CASSANDRA_JMX_PORT: '17500', CASSANDRA_HEAP: '512M' },
};
const sets = (t: Target) => Object.entries(t.set).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
const WORKLOAD = ['--profiles', '20', '--posts', '48', '--moves', String(MOVES)];
const COMMON = [...WORKLOAD, '--concurrency', String(CONCURRENCY), '--seed', '1'];
const QUIET = ['--samples', '10', '--no-table-metrics', '--no-progress'];

interface Report {
  moves_per_s: number;
  move_p50_ms: number | null;
  move_p99_ms: number | null;
  read_p50_ms: number | null;
  read_p99_ms: number | null;
  cas_retries: number | null;
  raw_ceiling_per_s?: number | null;
  moves: number;
  moves_attempted: number;
  uncertain: number;
  violations: unknown[];
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: 'inherit' });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)),
    );
  });
}

async function loadtest(name: string, target: Target, extra: string[]) {
  const json = `/tmp/regrid-bench-ring-${name}.json`;
  console.error(`\n== ${name}: npm run loadtest -- ${[...COMMON, ...extra].join(' ')}`);
  await run(
    'npm',
    ['run', '-s', 'loadtest', '--', ...COMMON, ...QUIET, ...extra, '--json', json, ...sets(target)],
    target.env,
  );
  return JSON.parse(readFileSync(json, 'utf8')) as Report;
}

const reports: Array<[string, Report]> = [];
try {
  reports.push(['1 node', await loadtest('single', SINGLE, [])]);
} finally {
  const ports = ['--storage-port', SINGLE.set.CASSANDRA_STORAGE_PORT!, '--jmx-port', SINGLE.set.CASSANDRA_JMX_PORT!]; // prettier-ignore
  await run('npm', ['run', '-s', 'cassandra:down', '--', ...ports], SINGLE.env).catch(
    () => undefined,
  );
}
reports.push(['3 nodes (RF 3)', await loadtest('ring', RING, ['--cluster', '3'])]);
reports.push([
  '3 nodes, 1 down',
  await loadtest('ring-one-down', RING, [
    '--cluster', '3', '--kill-node-at', '0%', '--restart-node-at', '100%', '--no-raw-ceiling',
  ]), // prettier-ignore
]);

const base = reports[0]![1];
const cols: Array<[string, (r: Report) => number | null | undefined]> = [
  ['moves/s', (r) => r.moves_per_s],
  ['move p50 ms', (r) => r.move_p50_ms],
  ['move p99 ms', (r) => r.move_p99_ms],
  ['read p50 ms', (r) => r.read_p50_ms],
  ['read p99 ms', (r) => r.read_p99_ms],
  ['CAS retries', (r) => r.cas_retries],
  ['raw CAS/s', (r) => r.raw_ceiling_per_s],
];
const cell = (v: number | null | undefined, b: number | null | undefined) =>
  v === null || v === undefined ? '-' : `${v}${b ? ` (${(v / b).toFixed(2)}x)` : ''}`.padEnd(18);
console.log(
  `\nregrid on 1 node vs a 3-node ring, ${WORKLOAD.join(' ')}, concurrency ${CONCURRENCY} (ratio to 1 node)`,
);
console.log(['run'.padEnd(16), ...cols.map(([c]) => c.padEnd(18))].join(''));
for (const [name, r] of reports) {
  console.log([name.padEnd(16), ...cols.map(([, f]) => cell(f(r), f(base)))].join(''));
}
for (const [name, r] of reports) {
  console.log(
    `${name}: ${r.moves}/${r.moves_attempted} moves acknowledged, ${r.uncertain} unknown outcome, ${r.violations.length} violations`,
  );
}
