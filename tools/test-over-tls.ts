/**
 * `npm run test:integration:tls`: the whole integration project (test/integration/**, the one
 * `npm test` runs) against a TLS-only Cassandra node and a TLS-only Redis of its own
 * (tools/tls-suite/stores.ts). The suite's global setup takes those endpoints and their TLS
 * settings from the environment (CASSANDRA_CONTACT_POINTS, CASSANDRA_TLS_*, a `rediss://`
 * REDIS_URL, REDIS_TLS_*). Files that cannot apply over TLS are left out, each with its reason
 * printed; everything this command started is stopped by PID; the summary counts files and
 * tests passed, failed and skipped. Extra arguments go to vitest (a file filter, say).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTlsStores, TLS_NODE } from './tls-suite/stores.js';

const log = (line: string) => console.log(`[tls suite] ${line}`);

/** Files left out, and why (each one printed and counted in the summary). */
const LEFT_OUT: ReadonlyArray<readonly [string, string]> = [
  [
    'test/integration/embed-guide.test.ts',
    "runs docs/embedding.md's example as written, whose host app builds its own plain-text " +
      'cassandra-driver Client and ioredis connection (the guide shows no TLS options); ' +
      'embedding over TLS is test/integration/embed.test.ts, which runs',
  ],
];

interface VitestJson {
  testResults: Array<{
    name: string;
    status: string;
    assertionResults: Array<{ status: string; fullName: string }>;
  }>;
}

function summarize(path: string, leftOut: number): string[] {
  if (!existsSync(path)) return [`no results (${path} missing): vitest did not finish`];
  const json = JSON.parse(readFileSync(path, 'utf8')) as VitestJson;
  const files = { passed: 0, failed: 0, skipped: leftOut };
  const tests = { passed: 0, failed: 0, skipped: 0 };
  const failed: string[] = [];
  for (const f of json.testResults) {
    const statuses = f.assertionResults.map((a) => a.status);
    if (f.status === 'failed') {
      files.failed++;
      failed.push(f.name.replace(`${process.cwd()}/`, ''));
    } else if (statuses.length > 0 && statuses.every((s) => s !== 'passed')) files.skipped++;
    else files.passed++;
    for (const s of statuses) {
      if (s === 'passed') tests.passed++;
      else if (s === 'failed') tests.failed++;
      else tests.skipped++;
    }
  }
  return [
    `files: ${files.passed} passed, ${files.failed} failed, ${files.skipped} skipped (${leftOut} left out)`,
    `tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped`,
    ...failed.map((f) => `failed: ${f}`),
  ];
}

async function main(): Promise<number> {
  const started = Date.now();
  const stores = await startTlsStores(log);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stores.stop());
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the stores`);
    void stop().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const results = join(TLS_NODE.REGRID_HOME, 'results.json');
  rmSync(results, { force: true });
  for (const [file, why] of LEFT_OUT) log(`left out ${file}: ${why}`);
  const args = [
    ...['vitest', 'run', '--project', 'integration'],
    ...['--reporter=default', '--reporter=json', `--outputFile.json=${results}`],
    ...LEFT_OUT.flatMap(([file]) => ['--exclude', file]),
    ...process.argv.slice(2),
  ];
  log(`npx ${args.join(' ')}`);
  let code: number;
  try {
    code = await new Promise<number>((ok) => {
      const child = spawn('npx', args, {
        stdio: 'inherit',
        env: { ...process.env, ...stores.env },
      });
      child.once('exit', (c, signal) => ok(c ?? (signal ? 1 : 0)));
    });
  } finally {
    await stop();
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  for (const line of summarize(results, LEFT_OUT.length)) log(`summary ${line}`);
  log(`vitest exited ${code} after ${minutes} min (stores included)`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`[tls suite] ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
