/**
 * docs/configuration.md's settings tables are what tools/config-docs/ renders from the zod schema
 * now (`npm run gen:config-docs`), and they name every setting with its default.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_GROUPS,
  ConfigSchema,
  ConfigurationError,
  loadConfig,
  TUNING_GROUPS,
} from '../../../src/config/config.js';
import { BEGIN, END, renderSettings, withSettings } from '../../../tools/config-docs/render.js';

const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it('is what the generator makes of the schema now (npm run gen:config-docs)', () => {
    expect(withSettings(doc)).toBe(doc);
  });

  it('has one row per setting, with the default the schema gives', () => {
    const table = renderSettings();
    const defaults = loadConfig({}) as Record<string, unknown>;
    for (const name of Object.keys(ConfigSchema.shape)) {
      const rows = table.split('\n').filter((l) => l.startsWith(`| \`${name}\` |`));
      expect(rows, name).toHaveLength(1);
      const value = defaults[name];
      if (typeof value === 'number' || typeof value === 'boolean') {
        expect(rows[0]!.split(' | ')[1], name).toBe(`\`${value}\``);
      }
    }
  });

  it('leaves at most 45 environment variables; a constant is never read from the environment', () => {
    const variables = CONFIG_GROUPS.flatMap((g) => Object.keys(g.shape));
    expect(variables.length).toBeLessThanOrEqual(45);
    expect(doc).toContain(`${variables.length} environment variables.`);
    for (const name of TUNING_GROUPS.flatMap((g) => Object.keys(g.shape))) {
      expect(variables, name).not.toContain(name);
      expect(() => loadConfig({ [name]: '1' }), name).toThrow(ConfigurationError);
    }
    // The same value set in code is taken.
    expect(loadConfig({}, { CACHE_LEASE_MS: 25 }).CACHE_LEASE_MS).toBe(25);
  });

  it('reads the merged settings: ADMIN_PORT=host:port, *_TLS_SERVERNAME=*, the serial consistency', () => {
    const c = loadConfig({
      ADMIN_PORT: '0.0.0.0:9090',
      CASSANDRA_TLS: 'true',
      CASSANDRA_TLS_SERVERNAME: '*',
      CASSANDRA_CONSISTENCY: 'quorum',
    });
    expect([c.ADMIN_HOST, c.ADMIN_PORT]).toEqual(['0.0.0.0', 9090]);
    expect([c.CASSANDRA_TLS_VERIFY_HOSTNAME, c.CASSANDRA_TLS_SERVERNAME]).toEqual([
      false,
      undefined,
    ]);
    expect(c.CASSANDRA_SERIAL_CONSISTENCY).toBe('serial');
    const d = loadConfig({
      ADMIN_PORT: '9090',
      CASSANDRA_TLS: 'true',
      CASSANDRA_TLS_SERVERNAME: 'db',
    });
    expect([d.ADMIN_HOST, d.ADMIN_PORT]).toEqual(['127.0.0.1', 9090]);
    expect([d.CASSANDRA_TLS_VERIFY_HOSTNAME, d.CASSANDRA_TLS_SERVERNAME]).toEqual([true, 'db']);
    expect(d.CASSANDRA_SERIAL_CONSISTENCY).toBe('localSerial');
    expect(() => loadConfig({ ADMIN_PORT: '70000' })).toThrow(/ADMIN_PORT/);
  });

  it('replaces only what lies between its markers', () => {
    const edited = `intro\n\n${BEGIN}\nOLD-TABLE-ROW-42\n${END}\n\nafter\n`;
    const out = withSettings(edited);
    expect(out.startsWith('intro\n\n')).toBe(true);
    expect(out.endsWith(`${END}\n\nafter\n`)).toBe(true);
    expect(out).not.toContain('OLD-TABLE-ROW-42');
  });
});
