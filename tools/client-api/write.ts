/**
 * `npm run gen:client`: writes client/src/api.gen.ts from the server's OpenAPI document (generate.ts);
 * `-- --check` only says whether the committed file is current (exit 1 when stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CLIENT_API_FILE, renderClientApi } from './generate.js';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const text = await renderClientApi();
let current = '';
try {
  current = readFileSync(CLIENT_API_FILE, 'utf8');
} catch {
  // no file yet: it is written below (or reported stale by --check)
}
if (values.check) {
  const fresh = current === text;
  console.log(
    fresh ? `${CLIENT_API_FILE} is current` : `${CLIENT_API_FILE} is stale: npm run gen:client`,
  );
  process.exit(fresh ? 0 : 1);
}
if (current === text) console.log(`${CLIENT_API_FILE} unchanged`);
else {
  writeFileSync(CLIENT_API_FILE, text);
  console.log(`wrote ${CLIENT_API_FILE}`);
}
