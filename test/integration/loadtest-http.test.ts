/**
 * The load tester over HTTP (`--target URL`): the whole session against the real app served on an
 * ephemeral loopback port (@hono/node-server, the real Cassandra and Redis behind it), driven by
 * the tester's own HTTP client. A tiny `uncontended` run acknowledges its moves, counts CAS
 * attempts from the server's /metrics, and the checker finds nothing wrong.
 */
import { readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCluster } from './support/loadtest.js';
import { parseOptions } from '../../tools/loadtest/options.js';
import { RegridHttpDesign } from '../../tools/loadtest/regrid-http-design.js';
import { runSession } from '../../tools/loadtest/session.js';
import { JWT_SECRET, openCore, type Core } from './core/harness.js';

const json = join(tmpdir(), `regrid-loadtest-http-${process.pid}.json`);
let core: Core;
let server: ServerType;
let base: string;

beforeAll(async () => {
  core = await openCore({ MOVE_RATE_LIMIT: '1000000' });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: core.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await core.close();
  await rm(json, { force: true });
});

describe('load tester over HTTP', () => {
  it('uncontended through the routes: moves acknowledged, attempts from /metrics, no violation', async () => {
    const o = parseOptions([
      '--target', base, '--scenario', 'uncontended', '--concurrency', '3', '--moves', '45',
      '--posts', '8', '--samples', '2', '--seed', '9', '--no-progress', '--no-table-metrics',
      '--json', json,
    ]); // prettier-ignore
    await runSession(o, {
      config: core.config,
      cluster: testCluster(core.client),
      makeDesign: () => RegridHttpDesign.create(base, JWT_SECRET, core.client, core.config),
      log: () => {},
      tableMetrics: false,
    });
    const r = JSON.parse(await readFile(json, 'utf8')) as Record<string, unknown>;
    expect(r).toMatchObject({
      design: 'regrid',
      scenario: 'uncontended',
      moves_attempted: 45,
      moves: 45,
      rejected: 0,
      contention_503: 0,
      tombstones_written: 0,
      violations: [],
    });
    expect(String(r.transport)).toContain(base);
    expect(r.cas_attempts_per_move as number).toBeGreaterThanOrEqual(1);
  });
});
