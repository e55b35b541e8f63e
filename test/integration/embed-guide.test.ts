/**
 * docs/embedding.md followed as written: its example (the ```ts block that calls createRegrid) is
 * read out of the guide, only its documented placeholders are replaced (the Cassandra contact
 * point and data center, the keyspace, the Redis URL, the port; each must occur exactly once, so
 * an edit of the guide that drops one fails here rather than testing something else), and it
 * runs as its own process (`node --import tsx`; `@regrid/server` resolves to src/ through
 * tsconfig.json's paths). Over real HTTP it must answer a create, a move and a page under the
 * host's prefix, its /readyz and docs, and drain on SIGTERM as the guide's handler says.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueToken } from '../../src/http/auth.js';
import { randomProfile } from './core/harness.js';
import { TEST_KEYSPACE, testConfig } from './support/stores.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = `${ROOT}docs/embedding.md`;
const SECRET = 'embed-guide-jwt-secret-0123456789';

/** The ```ts blocks of a markdown text, in order. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** `code` with each placeholder replaced; throws unless each occurs exactly once. */
function substitute(code: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let out = code;
  for (const [placeholder, value] of replacements) {
    const count = out.split(placeholder).length - 1;
    if (count !== 1) {
      throw new Error(`docs/embedding.md: ${placeholder} occurs ${count} times in the example`);
    }
    out = out.replace(placeholder, () => value);
  }
  return out;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

let child: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
let output = '';
let base = '';
const scratch = `${ROOT}.scratch/embed-guide-${process.pid}`;

beforeAll(async () => {
  const examples = tsBlocks(readFileSync(GUIDE, 'utf8')).filter((b) => b.includes('createRegrid('));
  expect(examples).toHaveLength(1);
  const config = testConfig();
  const port = await freePort();
  const code = substitute(examples[0]!, [
    ["'10.0.0.1:9042'", `'${config.CASSANDRA_CONTACT_POINTS[0]}:${config.CASSANDRA_PORT}'`],
    ["'dc1'", `'${config.CASSANDRA_LOCAL_DC}'`],
    ["const keyspace = 'regrid'", `const keyspace = '${TEST_KEYSPACE}'`],
    ["'redis://10.0.0.2:6379/2'", `'${config.REDIS_URL}'`],
    ['port: 8080', `port: ${port}`],
  ]);
  mkdirSync(scratch, { recursive: true });
  const file = `${scratch}/host.ts`;
  writeFileSync(file, code);
  child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { ...process.env, JWT_SECRET: SECRET, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  exited = new Promise((resolve) => child!.once('exit', (code) => resolve(code)));
  base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the example exited (${child.exitCode}): ${output}`);
    const status = await fetch(`${base}/regrid/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() - started > 90_000) throw new Error(`not ready in 90 s: ${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL'); // the process this file spawned, by its handle
    await exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

async function call(method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

it('the guide example answers a create, a move and a page under its prefix', async () => {
  const me = randomProfile();
  const token = await issueToken(SECRET, me);
  const ids: string[] = [];
  for (const caption of ['a', 'b', 'c']) {
    const created = await call('POST', '/regrid/v1/me/posts', token, { caption });
    expect(created.status, created.text).toBe(201);
    ids.push(created.json.post.id);
  }
  const moved = await call('POST', '/regrid/v1/me/grid/moves', token, {
    post_id: ids[0],
    after: null,
  });
  expect(moved.status, moved.text).toBe(200);
  const page = await call('GET', `/regrid/v1/profiles/${me}/grid?limit=10`);
  expect(page.status, page.text).toBe(200);
  expect(page.json.items.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[2], ids[1]]);
});

it('its /readyz checks the replicas, and its docs and document follow the prefix', async () => {
  const ready = await call('GET', '/regrid/readyz');
  expect(ready.status).toBe(200);
  expect(ready.json.checks).toMatchObject({ cassandra: 'ok', replicas: 'ok', redis: 'ok' });

  const doc = await call('GET', '/regrid/openapi.json');
  expect(doc.json.servers).toEqual([{ url: '/regrid' }]);
  const page = await call('GET', '/regrid/docs');
  expect(page.status).toBe(200);
  // Every file the page loads answers where the browser will ask for it.
  const refs = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
  expect(refs.length).toBeGreaterThanOrEqual(4);
  for (const ref of refs) {
    const url = new URL(ref, `${base}/regrid/docs`);
    expect(url.pathname.startsWith('/regrid/docs/'), url.pathname).toBe(true);
    expect((await fetch(url)).status, url.pathname).toBe(200);
  }
  const init = await fetch(new URL('docs/init.js', `${base}/regrid/docs`)).then((r) => r.text());
  expect(init).toContain('openapi.json');
});

it('on SIGTERM its handler drains: /readyz answers 503 draining while requests still run', async () => {
  child!.kill('SIGTERM');
  let ready = await call('GET', '/regrid/readyz');
  const sent = Date.now();
  while (ready.status === 200 && Date.now() - sent < 2_000) {
    await new Promise((r) => setTimeout(r, 20));
    ready = await call('GET', '/regrid/readyz');
  }
  expect(ready.status).toBe(503);
  expect(ready.json).toMatchObject({ status: 'draining' });
  // Still serving while it drains: the balancer stops sending, the requests in flight finish.
  const me = randomProfile();
  expect((await call('GET', `/regrid/v1/profiles/${me}/grid`)).status).toBe(200);
  expect(await exited).toBe(0);
}, 30_000);
