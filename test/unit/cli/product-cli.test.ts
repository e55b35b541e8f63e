/**
 * The product's CLI (src/cli.ts: the commands of src/cli/commands.ts) beside the development
 * one (tools/cli.ts): it lists every command, runs only its own, says how a checkout runs the
 * development ones, and finds Cassandra only at the configured contact points.
 */
import { describe, expect, it } from 'vitest';
import { configuredTarget } from '../../../src/bootstrap.js';
import { runCli } from '../../../src/cli/cli-main.js';
import { productCommands } from '../../../src/cli/commands.js';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { loadConfig } from '../../../src/config/config.js';
import { devCommands } from '../../../tools/cli/dev-commands.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

describe('the product CLI', () => {
  it('runs only the product commands; the development ones come with tools/', () => {
    const product = Object.keys(productCommands()).sort();
    expect(product).toEqual(['audit', 'flags', 'import', 'migrate', 'region', 'serve', 'takedown']);
    expect(Object.keys(devCommands()).sort()).toEqual(
      [...product, 'cassandra', 'loadtest', 'seed'].sort(),
    );
  });

  it('lists every command and says where the development ones run', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.io, productCommands())).toBe(EXIT.ok);
    const text = c.out.join('\n');
    for (const name of ['serve', 'migrate', 'seed', 'cassandra', 'loadtest']) {
      expect(text).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    expect(text).toContain('in this checkout through `npm run regrid` (tools/cli.ts)');
  });

  it('refuses a development command in words, exit 3, before it parses the configuration', async () => {
    const c = capture();
    expect(await runCli(['cassandra', 'status'], c.io, productCommands())).toBe(EXIT.unavailable);
    expect(c.err.join('\n')).toContain('`npm run regrid -- cassandra`');
    const h = capture();
    expect(await runCli(['loadtest', '--help'], h.io, productCommands())).toBe(EXIT.ok);
    expect(h.out.join('\n')).toContain('not available in this install');
  });

  it('takes Cassandra from the contact points only', () => {
    expect(() => configuredTarget(loadConfig({}))).toThrow(/CASSANDRA_CONTACT_POINTS is not set/);
    expect(() => configuredTarget(loadConfig({ NODE_ENV: 'production' }))).toThrow(
      /production never provisions/,
    );
    expect(
      configuredTarget(loadConfig({ CASSANDRA_CONTACT_POINTS: 'h1,h2', CASSANDRA_PORT: '9043' })),
    ).toEqual({
      contactPoints: ['h1', 'h2'],
      localDataCenter: 'datacenter1',
      port: 9043,
      origin: 'external',
    });
  });
});
