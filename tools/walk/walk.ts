/**
 * `npm run walk`: which `src/` files one warm request actually runs, measured by V8 itself.
 *
 * Method (issue #32): the real server runs as a child process (child.ts) with NODE_V8_COVERAGE
 * set, on the shared Cassandra (its own keyspace: REGRID_KEYSPACE, default regrid_walk) and
 * Redis (database 13 unless WALK_REDIS_URL says otherwise), reached over a real HTTP listener.
 * After a warm-up, each window is: `v8.takeCoverage()` (writes and resets the counts), exactly
 * one request, awaited to its last byte, `v8.takeCoverage()` again. A file counts when any of
 * its functions has a range with count > 0 in that window (coverage.ts: a function compiled
 * but not run is reported with count 0 and does not count). Each request kind gets three such
 * windows and only the files present in all three are kept; then every file that an idle window
 * of the same length ran (a timer, the flags refresh, the sweeper, a debounced refill) is taken
 * away, one idle window after each request window. Between windows the walk waits a second, so
 * the background work one request schedules (refill debounce 50–500 ms, log flush 250 ms) runs
 * outside the next window.
 *
 * The three walks: one warm move (POST /v1/me/grid/moves); one first page read right after a
 * move (the move's response is awaited outside the window, so the page misses every cache tier
 * that the move invalidated); one cached first page (the same page read twice just before).
 * V8's counts carry no time, so the files are listed alphabetically, not in the order they ran.
 *
 * `--env KEY=VALUE` (repeatable) reaches the server's environment, so a walk can be taken with a
 * mechanism switched off by its setting. The idle windows' files are printed too: a file a timer
 * ran in an idle window is taken away even when the request ran it as well (the sweeper's and the
 * flags' files are the usual ones), which is where two runs of the walk differ.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { issueToken } from '../../src/http/auth.js';
import { filesRun, intersect, minus } from './coverage.js';
import { startService, type ServiceProcess } from './service-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const WINDOWS = 3;
const GAP_MS = 1_000;
const POSTS = 48;
const PROFILE = BigInt(1_000_000 + Math.floor(Math.random() * 1_000_000_000));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

class Walker {
  private seen = new Set<string>();
  constructor(
    private readonly svc: ServiceProcess,
    private readonly dir: string,
  ) {}

  /** The coverage file the last `take` wrote (the only new one in the directory). */
  private latest(): string {
    const fresh = readdirSync(this.dir).filter((f) => !this.seen.has(f));
    fresh.forEach((f) => this.seen.add(f));
    if (fresh.length !== 1) throw new Error(`expected one new coverage file, got ${fresh.length}`);
    return join(this.dir, fresh[0]!);
  }

  private async window(run: () => Promise<unknown>): Promise<{ files: Set<string>; ms: number }> {
    await this.svc.take();
    rmSync(this.latest());
    const t0 = performance.now();
    await run();
    await this.svc.take();
    const ms = performance.now() - t0;
    const file = this.latest();
    const files = filesRun(file, ROOT);
    rmSync(file);
    return { files, ms };
  }

  /** Three request windows intersected, minus what idle windows of the same length ran. */
  async walk(before: () => Promise<unknown>, request: () => Promise<unknown>) {
    const runs: Set<string>[] = [];
    const idle = new Set<string>();
    const ms: number[] = [];
    for (let i = 0; i < WINDOWS; i++) {
      await sleep(GAP_MS);
      await before();
      const w = await this.window(request);
      runs.push(w.files);
      ms.push(w.ms);
      await sleep(GAP_MS);
      const quiet = await this.window(() => sleep(w.ms));
      quiet.files.forEach((f) => idle.add(f));
    }
    const kept = minus(intersect(runs), idle);
    return { files: [...kept].sort(), perWindow: runs.map((r) => r.size), idle: [...idle], ms };
  }
}

const { values: args } = parseArgs({ options: { env: { type: 'string', multiple: true } } });
const passed = Object.fromEntries(
  (args.env ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env wants KEY=VALUE, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'regrid-walk-'));
  const keyspace = process.env.REGRID_KEYSPACE ?? 'regrid_walk';
  const secret = randomBytes(24).toString('hex');
  const svc = await startService(
    {
      NODE_ENV: 'development',
      CASSANDRA_CONTACT_POINTS: process.env.CASSANDRA_CONTACT_POINTS ?? '127.0.0.1',
      CASSANDRA_KEYSPACE: keyspace,
      REDIS_URL: process.env.WALK_REDIS_URL ?? 'redis://127.0.0.1:6379/13',
      AUTH_JWT_SECRET: secret,
      CURSOR_SECRET: randomBytes(24).toString('hex'),
      NODE_V8_COVERAGE: dir,
      ...passed,
    },
    log,
  );
  try {
    const token = await issueToken(secret, PROFILE, 3600);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${svc.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    log(`[walk] profile ${PROFILE} in keyspace ${keyspace}: ${POSTS} posts`);
    const ids: string[] = [];
    for (let i = 0; i < POSTS; i++) {
      const r = await call('POST', '/v1/me/posts', { caption: `walk ${i}` });
      ids.push((r.post as { id: string }).id);
    }
    let n = 0;
    const move = () => {
      n += 1;
      return call('POST', '/v1/me/grid/moves', {
        post_id: ids[n % POSTS],
        after: ids[(n * 7 + 3) % POSTS] === ids[n % POSTS] ? null : ids[(n * 7 + 3) % POSTS],
      });
    };
    const page = () => call('GET', `/v1/profiles/${PROFILE}/grid`);
    // Warm-up: statements prepared, code compiled and optimised, caches of this grid in use.
    for (let i = 0; i < 20; i++) {
      await move();
      await page();
      await page();
    }
    await sleep(GAP_MS);
    const walker = new Walker(svc, dir);
    const nothing = async () => {};
    const walks = {
      'one warm move': await walker.walk(nothing, move),
      'first page right after a move': await walker.walk(move, page),
      'cached first page': await walker.walk(async () => {
        await page();
        await page();
      }, page),
    };
    const core = (f: string) => !/^src\/(http|domain|obs)\//.test(f);
    const settings = Object.keys(passed).length ? `; --env ${JSON.stringify(passed)}` : '';
    console.log(
      `runtime walk (V8 block coverage; files listed alphabetically: V8 gives no order${settings})`,
    );
    for (const [name, w] of Object.entries(walks)) {
      console.log(
        `\n${name}: ${w.files.length} src/ files (${w.files.filter(core).length} outside http/, domain/, obs/); ` +
          `per window ${w.perWindow.join(', ')} before intersecting; window ${w.ms.map((m) => m.toFixed(1)).join(', ')} ms; ` +
          `idle windows ran ${w.idle.length} files (removed)`,
      );
      for (const f of w.files) console.log(`  ${f}`);
      if (w.idle.length > 0) console.log(`  (idle windows ran: ${w.idle.sort().join(', ')})`);
    }
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
