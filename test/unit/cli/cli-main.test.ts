import { readFileSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDevCli as runCli } from '../../../tools/cli/dev-commands.js';
import { parseCommandArgs, SPECS, specOf } from '../../../src/cli/command-specs.js';
import { devCheckout } from '../../../src/cli/dev-tooling.js';
import { domainExit, EXIT, unreachableLine } from '../../../src/cli/exit-codes.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

// A command that wrongly connected would meet a dead port (exit 3), never a real store.
const DEAD = { CASSANDRA_CONTACT_POINTS: '127.0.0.1', CASSANDRA_PORT: '1', REDIS_URL: 'redis://127.0.0.1:1' }; // prettier-ignore
const saved: Record<string, string | undefined> = {};
beforeEach(() => {
  for (const [k, v] of Object.entries(DEAD)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('regrid CLI: top level', () => {
  it('--version prints the package version and exits 0', async () => {
    for (const flag of ['--version', '-V']) {
      const c = capture();
      expect(await runCli([flag], c.io)).toBe(EXIT.ok);
      expect(c.out).toEqual([`regrid ${pkg.version}`]);
    }
  });

  it('--help lists every command and the exit codes, on stdout, exit 0', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.io)).toBe(EXIT.ok);
    const text = c.out.join('\n');
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
      expect(text).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    expect(text).toContain('0 ok, 1 findings, 2 usage, 3 unavailable');
    expect(c.err).toEqual([]);
  });

  it('no command, an unknown command or an unknown global option is a usage error (2)', async () => {
    for (const argv of [[], ['nope'], ['--frob'], ['--json', 'audit']]) {
      const c = capture();
      expect(await runCli(argv, c.io)).toBe(EXIT.usage);
      expect(c.err.join('\n')).toContain('usage: regrid <command>');
      expect(c.out).toEqual([]);
    }
  });

  it('every command answers --help with its own usage, without running', async () => {
    for (const spec of SPECS) {
      const c = capture();
      expect(await runCli([spec.name, '--help'], c.io)).toBe(EXIT.ok);
      expect(c.out[0]).toBe(`regrid ${spec.name}: ${spec.summary}`);
      expect(c.out.join('\n')).toContain(`usage: regrid ${spec.name}`);
    }
    const c = capture();
    expect(await runCli(['cassandra', 'status', '-h'], c.io)).toBe(EXIT.ok);
    expect(c.out.join('\n')).toContain('stop-node N');
  });

  it('bad arguments exit 2 before anything connects', async () => {
    const cases = [
      ['migrate', '--bogus'],
      ['migrate', 'extra'],
      ['migrate', '--keyspace', 'Bad-Name'],
      ['takedown'],
      ['takedown', '1', '2'],
      ['takedown', 'not-an-id'],
      ['audit', '--every', 'soon'],
      ['audit', '--times', '3'],
      ['flags'],
      ['flags', 'set', 'x', 'maybe'],
      ['seed', '--posts', '0'],
      ['cassandra'],
      ['cassandra', 'sideways'],
      ['cassandra', 'up', '--nodes', 'ten'],
      ['cassandra', 'down', '--node', 'both'],
    ];
    for (const argv of cases) {
      const c = capture();
      expect(await runCli(argv, c.io), argv.join(' ')).toBe(EXIT.usage);
      expect(c.err.length, argv.join(' ')).toBeGreaterThan(0);
    }
  });

  it('an unreachable Cassandra is one line and exit 3, not a stack', async () => {
    const c = capture();
    expect(await runCli(['migrate', '--status'], c.io)).toBe(EXIT.unavailable);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).toMatch(
      /^regrid migrate: Cassandra unreachable: 127\.0\.0\.1:1 \(ECONNREFUSED\)/,
    );
  });

  it('this checkout counts as a development checkout; an install without tsx does not', () => {
    expect(devCheckout()).toBe(true);
    expect(
      devCheckout(() => {
        throw Object.assign(new Error('nope'), { code: 'MODULE_NOT_FOUND' });
      }),
    ).toBe(false);
  });
});

describe('regrid CLI: parsing and exit codes', () => {
  it('parses a command with node:util parseArgs, strictly', () => {
    expect(
      parseCommandArgs(specOf('audit'), ['--profile', '1', '--profile', '2', '--json']),
    ).toEqual({
      values: { profile: ['1', '2'], json: true },
      positionals: [],
    });
    expect(parseCommandArgs(specOf('seed'), [])).toEqual({
      values: { posts: '300' },
      positionals: [],
    });
    const bad = parseCommandArgs(specOf('flags'), ['list', '--jsn']);
    expect(bad).toEqual({ error: "Unknown option '--jsn' (regrid flags --help)" });
    // The load tester's own schema reads its options: only --help is looked at here.
    expect(parseCommandArgs(specOf('loadtest'), ['--moves', '5'])).not.toHaveProperty('error');
  });

  it('maps domain errors: bad input 2, not found 1, a failed store 3', () => {
    expect(domainExit('invalid_request')).toBe(2);
    expect(domainExit('flag_not_found')).toBe(2);
    expect(domainExit('post_not_found')).toBe(1);
    expect(domainExit('post_not_on_grid')).toBe(1);
    expect(domainExit('unavailable')).toBe(3);
    expect(domainExit('write_outcome_unknown')).toBe(3);
  });

  it("names the hosts of the driver's NoHostAvailableError in one line", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    const err = new cassandra.errors.NoHostAvailableError({ '127.0.0.1:1': refused, '10.0.0.2:9042': new Error('timeout\nstack') }); // prettier-ignore
    const line = unreachableLine(err)!;
    expect(line).toBe(
      'Cassandra unreachable: 127.0.0.1:1 (ECONNREFUSED), 10.0.0.2:9042 (timeout); check CASSANDRA_CONTACT_POINTS and CASSANDRA_PORT',
    );
    expect(unreachableLine(new Error('boom'))).toBeUndefined();
    expect(
      unreachableLine(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe('store unreachable: connect ECONNREFUSED 127.0.0.1:1');
  });
});
