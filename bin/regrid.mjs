#!/usr/bin/env node
// `regrid <command>` (npx regrid --help). In a development checkout (tools/cli.ts next to this
// folder and tsx installed) the development CLI through tsx's ESM loader: the product's commands
// plus seed, cassandra and loadtest. In an install, the built product CLI (dist/cli.js).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const devCli = new URL('../tools/cli.ts', import.meta.url);
const hasTsx = () => {
  try {
    createRequire(import.meta.url).resolve('tsx/package.json');
    return true;
  } catch {
    return false;
  }
};
if (existsSync(devCli) && hasTsx()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(devCli.href);
} else {
  await import(new URL('../dist/cli.js', import.meta.url).href);
}
