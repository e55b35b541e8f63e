/**
 * Two service processes sharing one Cassandra: a flag flipped through this process is followed
 * by a second OS process (server-child.ts, spawned with tsx) within the documented bound
 * (2 × FLAGS_REFRESH_MS, at most 2 s), observed through its public grid read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openFlagsHarness, type Opened } from './harness.js';

let h: Opened;
let child: ChildProcess | undefined;
let base = '';

beforeAll(async () => {
  h = await openFlagsHarness();
  child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./server-child.ts', import.meta.url).pathname],
    {
      env: { ...process.env, FLAGS_SCOPE: h.config.FLAGS_SCOPE },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child did not start in 60 s')), 60_000);
    child!.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    createInterface({ input: child!.stdout! }).on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM'); // the child we spawned, by its handle
    await exited;
  }
  await h.close();
});

async function childOrder(profileId: bigint): Promise<string[]> {
  const res = await fetch(`${base}/v1/profiles/${profileId}/grid?limit=50`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { items: Array<{ id: string }> };
  return body.items.map((i) => i.id);
}

it('a flip through one process is followed by the other within the bound', async () => {
  const p = h.ids.next();
  const posts: bigint[] = [];
  for (let i = 0; i < 5; i++) {
    posts.push((await h.service.createPost(p, { caption: `p${i}` })).value.postId);
  }
  await h.service.move(p, posts[0]!, null);
  const chronological = [...posts].reverse().map(String);
  const arranged = await childOrder(p); // the child has read its flags
  expect(arranged).not.toEqual(chronological);
  const bound = h.service.flags.boundMs;
  expect(bound).toBeLessThanOrEqual(2000);

  for (const [enabled, expected] of [
    [false, chronological],
    [true, arranged],
  ] as const) {
    await h.service.flags.set('reads.overrides', enabled);
    const flipped = Date.now();
    let seen = await childOrder(p);
    while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() - flipped < 5_000) {
      await new Promise((r) => setTimeout(r, 25));
      seen = await childOrder(p);
    }
    expect(seen).toEqual(expected);
    // One request round trip of slack on top of the bound.
    expect(Date.now() - flipped).toBeLessThanOrEqual(bound + 250);
  }
});
