#!/usr/bin/env node
// Every repository path named in the README, docs/ and source comments must exist: a stale path
// sends a newcomer to a room that is gone. Scans for tokens that start with one of the top-level
// folders below and checks each against the work tree (a trailing `*` or `…` means "a family of
// files": only its folder must exist). Migrations (cql/) are left out: they are immutable once applied
// (the runner checks their checksums). Exits 1 and lists what is missing.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const roots = [
  'src',
  'docs',
  'test',
  'bench',
  'cql',
  'scripts',
  'web',
  'examples',
  'client',
  'tools',
  'bin',
];
const token = new RegExp(
  `(?<![\\w./-])((?:\\.\\./)*(?:${roots.join('|')})/[\\w./*{}-]*[\\w*/])`,
  'g',
);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(md|ts|mjs|cjs|js|sh|yml|yaml|cql)$/.test(name)) yield p;
  }
}

const sources = ['README.md', 'CHANGELOG.md'].map((f) => join(root, f)).filter(existsSync);
for (const d of ['docs', 'src', 'scripts', 'bench', 'tools', 'client/src', 'web/src', 'examples']) {
  if (existsSync(join(root, d))) sources.push(...files(join(root, d)));
}

// `cql/019` names the migration `cql/019_….cql`: a prefix of one file's name counts.
function prefixOfFile(abs) {
  const dir = dirname(abs);
  const stem = abs.slice(dir.length + 1);
  return existsSync(dir) && readdirSync(dir).some((n) => n.startsWith(stem + '_'));
}

const missing = [];
for (const file of sources.filter((f) => !f.endsWith('check-paths.mjs'))) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    // In code, only comments name paths for a reader; imports are checked by the compiler.
    if (/\.(ts|mjs|js)$/.test(file) && !/^\s*(\/\/|\*|\/\*)/.test(line)) return;
    for (const m of line.matchAll(token)) {
      let p = m[1].replace(/[.]+$/, '');
      if (/[*{}]/.test(p)) p = p.slice(0, p.search(/[*{}]/)).replace(/[^/]*$/, '');
      const base = p.startsWith('../') ? dirname(file) : root;
      const abs = resolve(base, p);
      const rel = relative(root, abs);
      if (rel.startsWith('..')) continue;
      // Build outputs (web/dist, client/dist) exist only after a build: not checked.
      if (/^(web|client)\/dist(\/|$)/.test(rel)) continue;
      if (!existsSync(abs) && !existsSync(abs.replace(/\.js$/, '.ts')) && !prefixOfFile(abs)) {
        missing.push(`${relative(root, file)}:${i + 1}: ${m[1]}`);
      }
    }
  });
}
if (missing.length) {
  console.error(`paths named but missing (${missing.length}):\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`paths: every named path exists (${sources.length} files scanned)`);
