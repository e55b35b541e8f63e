/**
 * `regrid --help` and `--version` as a user runs them (a child process through tsx), with every
 * store unreachable: they answer, exit 0, and print their time beside Node + tsx starting and
 * doing nothing (the difference is the CLI's own). Timing is reported, never asserted.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
const DEAD = {
  ...process.env,
  CASSANDRA_CONTACT_POINTS: '127.0.0.1',
  CASSANDRA_PORT: '1',
  REDIS_URL: 'redis://127.0.0.1:1',
};

function timed(args: string[]) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { env: DEAD, encoding: 'utf8', timeout: 30_000 }); // prettier-ignore
  return { ms: performance.now() - t0, status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('regrid --help / --version with every store unreachable', () => {
  it('answer at once, exit 0, connect to nothing', () => {
    const runs = { baseline: [] as number[], help: [] as number[], version: [] as number[] };
    for (let i = 0; i < 3; i++) {
      runs.baseline.push(timed(['-e', '0']).ms);
      const help = timed(['src/cli.ts', '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('usage: regrid <command>');
      for (const name of [
        'serve',
        'migrate',
        'audit',
        'takedown',
        'flags',
        'seed',
        'cassandra',
        'loadtest',
      ]) {
        expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
      }
      expect(help.stderr).toBe('');
      runs.help.push(help.ms);
      const version = timed(['src/cli.ts', '--version']);
      expect(version.status).toBe(0);
      expect(version.stdout).toBe(`regrid ${pkg.version}\n`);
      runs.version.push(version.ms);
    }
    const b = median(runs.baseline);
    console.log(
      `[cli-offline] median of 3, ms: node+tsx doing nothing ${b.toFixed(0)}; --help ${median(runs.help).toFixed(0)} ` +
        `(own ${(median(runs.help) - b).toFixed(0)}); --version ${median(runs.version).toFixed(0)} (own ${(median(runs.version) - b).toFixed(0)})`,
    );
  }, 120_000);
});
