/**
 * ADMIN_PORT (docs/operating.md "Admin listener"): the service process (src/main.ts, spawned on
 * the real stores) then serves the API alone on PORT, /openapi.json included, while /metrics,
 * /docs and the web editor answer on the admin listener only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_KEYSPACE } from '../support/stores.js';

let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL'); // the child we spawned, by its handle
});

/** Spawns the server; resolves the public and admin base URLs from its start-up lines. */
function start(): Promise<{ pub: string; admin: string }> {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      CASSANDRA_KEYSPACE: TEST_KEYSPACE,
      PORT: '0',
      ADMIN_PORT: '0',
      AUTH_JWT_SECRET: 'admin-listener-test-jwt-secret-0123456789',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening lines:\n${output}`)), 90_000);
    const seen = () => {
      const pub = /regrid listening on (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(output);
      const admin = /admin listener on (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(output);
      if (pub && admin) {
        clearTimeout(timer);
        resolve({ pub: pub[1]!, admin: admin[1]! });
      }
    };
    child!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      seen();
    });
    child!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child!.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
}

const status = async (url: string) => (await fetch(url)).status;

describe('ADMIN_PORT', () => {
  it('moves /metrics, /docs and the editor off the public port', async () => {
    const { pub, admin } = await start();
    expect(pub).not.toBe(admin);
    // The public port: the API, health and the document; nothing of the operator's.
    expect(await status(`${pub}/metrics`)).toBe(404);
    expect(await status(`${pub}/docs`)).toBe(404);
    expect(await status(`${pub}/`)).toBe(404);
    expect(await status(`${pub}/readyz`)).toBe(200);
    expect(await status(`${pub}/openapi.json`)).toBe(200);
    expect(await status(`${pub}/v1/profiles/1/grid?limit=1`)).toBe(200);
    // The admin listener: the metrics and the docs page.
    const metrics = await fetch(`${admin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('regrid_http_requests_total');
    expect(await status(`${admin}/docs`)).toBe(200);
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 150_000);
});
