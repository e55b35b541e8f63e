/**
 * One exit-code table for every entry (docs/cli.md): the image's CMD (`src/main.ts`, built as
 * `dist/main.js`) and `regrid serve` fail alike, each with one line and no stack, and a setting
 * missing or wrong exits 2 from every entry, `migrate` included. Child processes through tsx, with
 * only the environment given here (a production process with an unreachable Cassandra).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const PRODUCTION = {
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  NODE_ENV: 'production',
  CASSANDRA_CONTACT_POINTS: '127.0.0.1',
  CASSANDRA_PORT: '1',
  CASSANDRA_KEYSPACE: 'regrid_never_created',
  REDIS_URL: 'none',
  AUTH_JWT_SECRET: 'entry-exits-secret-entry-exits-secret-0123',
  HOST: '127.0.0.1',
  PORT: '0',
};

function run(args: string[], env: Record<string, string | undefined>) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { env, encoding: 'utf8', timeout: 60_000 }); // prettier-ignore
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  return { status: r.status, lines };
}

const main = ['src/main.ts'];
const serve = ['src/cli.ts', 'serve'];

describe('the exit code and line of every entry', () => {
  it('Cassandra unreachable: main.ts and regrid serve exit 3 with one line naming it', () => {
    for (const entry of [main, serve]) {
      const r = run(entry, PRODUCTION);
      expect({ entry, status: r.status }).toEqual({ entry, status: 3 });
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toMatch(/Cassandra unreachable: 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
    }
  }, 120_000);

  it('a production setting missing: main.ts, serve and migrate exit 2 naming it', () => {
    const { CASSANDRA_CONTACT_POINTS: _cp, ...noContactPoints } = PRODUCTION;
    for (const entry of [main, serve, ['src/cli.ts', 'migrate']]) {
      const r = run(entry, noContactPoints);
      expect({ entry, status: r.status }).toEqual({ entry, status: 2 });
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toMatch(/CASSANDRA_CONTACT_POINTS/);
    }
  }, 120_000);

  it('an invalid setting: main.ts exits 2 as the CLI does', () => {
    const r = run(main, { ...PRODUCTION, CASSANDRA_PORT: 'many' });
    expect(r.status).toBe(2);
    expect(r.lines.join('\n')).toMatch(/invalid configuration:[\s\S]*CASSANDRA_PORT/);
  }, 60_000);
});
