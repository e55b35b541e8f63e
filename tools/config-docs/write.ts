/**
 * `npm run gen:config-docs`: rewrites the settings tables of docs/configuration.md from the zod
 * schema (render.ts); `-- --check` only says whether the file is current (exit 1 when stale;
 * `npm run lint` runs it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { withSettings } from './render.js';

const FILE = 'docs/configuration.md';
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const current = readFileSync(FILE, 'utf8');
const text = withSettings(current);
if (values.check) {
  const fresh = current === text;
  console.log(fresh ? `${FILE} is current` : `${FILE} is stale: npm run gen:config-docs`);
  process.exit(fresh ? 0 : 1);
}
if (current === text) console.log(`${FILE} unchanged`);
else {
  writeFileSync(FILE, text);
  console.log(`wrote ${FILE}`);
}
