#!/usr/bin/env node
// `regrid <command>` (npx regrid --help): runs the built CLI (dist/cli.js) when it exists, else,
// in a development checkout without a build, the TypeScript source through tsx's ESM loader.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
