#!/usr/bin/env node
// The version lives in one place, the root package.json (@regrid/server): `npm version <v>` at
// the root runs this (the root's "version" script) to give @regrid/client the same version in
// client/package.json and client/package-lock.json; `--check` (npm run lint) fails when they
// differ, so the two packages are always released with one version.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const read = (file) => JSON.parse(readFileSync(new URL(file, root), 'utf8'));
const { version } = read('package.json');
const check = process.argv.includes('--check');
let stale = 0;
for (const file of ['client/package.json', 'client/package-lock.json']) {
  const json = read(file);
  const places = file.endsWith('package-lock.json') ? [json, json.packages['']] : [json];
  if (places.every((p) => p.version === version)) continue;
  if (check) {
    console.error(`version: ${file} has ${places[0].version}, package.json has ${version}`);
    stale++;
    continue;
  }
  for (const p of places) p.version = version;
  writeFileSync(new URL(file, root), JSON.stringify(json, null, 2) + '\n');
  console.log(`version: ${file} set to ${version}`);
}
if (stale > 0) {
  console.error('run `node scripts/sync-version.mjs` (npm version at the root runs it)');
  process.exit(1);
}
