/**
 * docs/configuration.md's settings tables are what tools/config-docs/ renders from the zod schema
 * now (`npm run gen:config-docs`), and they name every setting with its default.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../../../src/config/config.js';
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

  it('replaces only what lies between its markers', () => {
    const edited = `intro\n\n${BEGIN}\nOLD-TABLE-ROW-42\n${END}\n\nafter\n`;
    const out = withSettings(edited);
    expect(out.startsWith('intro\n\n')).toBe(true);
    expect(out.endsWith(`${END}\n\nafter\n`)).toBe(true);
    expect(out).not.toContain('OLD-TABLE-ROW-42');
  });
});
