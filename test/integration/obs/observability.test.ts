/**
 * The observability seams end to end, in-process on the real Cassandra and Redis: a short
 * workload through the HTTP app (creates, moves, a 409, a 429, cache misses, hits and lease
 * waits, a cursor page after a change, a min_version above the head, a 503 from a Cassandra that
 * answers nothing), then:
 * - GET /metrics has every family, non-zero where the workload exercised it, and passes
 *   `promtool check metrics` (skipped with a logged reason when promtool is not on PATH);
 * - the request log line carries request id, route pattern, status, latency and profile, and
 *   no bearer token;
 * - `regrid audit --every --times` publishes regrid_audit_findings{kind} per round.
 */
import { spawnSync } from 'node:child_process';
import { errors } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { createApp } from '../../../src/http/app.js';
import { issueToken } from '../../../src/http/auth.js';
import { createLogger } from '../../../src/obs/logger.js';
import { collectProcessMetrics, registry } from '../../../src/obs/registry.js';
import { watchDriver } from '../../../src/obs/metrics-platform.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { runRegrid } from '../support/run-regrid.js';
import { randomProfile } from '../core/harness.js';
import { requestJson } from '../support/http.js';
import { openPerFile } from '../support/per-file.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

const JWT_SECRET = 'obs-tests-jwt-secret-0123456789ab';

interface World {
  client: Client;
  redis: RedisGuard;
  service: GridService;
  app: ReturnType<typeof createApp>;
  /** Over a Cql whose every statement fails like a cluster with no host up. */
  deadApp: ReturnType<typeof createApp>;
  lines: string[];
  close(): Promise<void>;
}

async function openWorld(): Promise<World> {
  const config = testConfig({
    REDIS_TIMEOUT_MS: '2000',
    MOVE_RATE_LIMIT: '4',
    MOVE_RATE_WINDOW_S: '60',
  });
  const client = await connectTestClient(config);
  const redis = createRedisGuard(config);
  await redis.waitReady(5000);
  const ids = idsFromWorkers(8191, 1);
  const service = new GridService({
    cql: cqlOf(client),
    config,
    ids,
    cursorSecret: 'obs-tests-cursor-secret-0123456789',
    redis,
  });
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s) => lines.push(s) } });
  const common = {
    jwtSecret: JWT_SECRET,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(client), redis }),
    logger,
  };
  const app = createApp({ ...common, service });
  const noHost = () => Promise.reject(new errors.NoHostAvailableError({}));
  const dead = new GridService({
    cql: cqlOf({ execute: noHost, batch: noHost }),
    config,
    ids,
    cursorSecret: 'obs-tests-cursor-secret-0123456789',
  });
  const deadApp = createApp({ ...common, service: dead });
  const close = async () => {
    await redis.close();
    await client.shutdown();
  };
  return { client, redis, service, app, deadApp, lines, close };
}

let w: World;
openPerFile(openWorld, (opened) => (w = opened));

const call = (
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  app = w.app,
) =>
  requestJson(
    app,
    method,
    path,
    { ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
    opts.body === undefined ? undefined : JSON.stringify(opts.body),
  );

/** The sum of the samples of `name` whose labels include every pair of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

const FAMILIES = [
  'regrid_grid_writes_total',
  'regrid_grid_write_duration_seconds',
  'regrid_cas_attempts',
  'regrid_cas_lost_total',
  'regrid_cas_outcome_unknown_total',
  'regrid_relabels_total',
  'regrid_relabel_rows',
  'regrid_rows_written',
  'regrid_group_commit_writes',
  'regrid_first_page_reads_total',
  'regrid_cache_fills_total',
  'regrid_cache_fallbacks_total',
  'regrid_redis_errors_total',
  'regrid_redis_breaker_open',
  'regrid_page_read_duration_seconds',
  'regrid_grid_changed_total',
  'regrid_min_version_escalations_total',
  'regrid_rate_limited_total',
  'regrid_http_requests_total',
  'regrid_http_request_duration_seconds',
  'regrid_cql_duration_seconds',
  'regrid_cql_errors_total',
  'regrid_cql_in_flight',
  'regrid_audit_findings',
  'regrid_build_info',
];

function promtool(args: string[], input?: string) {
  const r = spawnSync('promtool', args, { input, encoding: 'utf8' });
  return r.error ? undefined : r;
}

describe('observability', () => {
  it('counts a short workload in GET /metrics, which promtool accepts', async () => {
    const me = randomProfile();
    const token = await issueToken(JWT_SECRET, me);
    const posts: string[] = [];
    for (const caption of ['a', 'b', 'c', 'd', 'e']) {
      const r = await call('POST', '/v1/me/posts', { token, body: { caption } });
      expect(r.status).toBe(201);
      posts.push(r.json.post.id);
    }
    const grid = `/v1/profiles/${me}/grid`;
    // A miss that fills, then a hit; then, after a move, eight concurrent misses: one fills
    // (slowly, see beforePublish) while the others wait on its lease.
    expect((await call('GET', grid)).status).toBe(200);
    expect((await call('GET', grid)).status).toBe(200);
    for (const [post, after] of [
      [posts[0], null],
      [posts[1], posts[3]],
    ]) {
      const r = await call('POST', '/v1/me/grid/moves', { token, body: { post_id: post, after } });
      expect(r.status).toBe(200);
    }
    const burst = await Promise.all(Array.from({ length: 8 }, () => call('GET', grid)));
    expect(burst.map((r) => r.status)).toEqual(Array(8).fill(200));

    // A cursor page after the grid changed; a min_version above the head.
    const first = await call('GET', `${grid}?limit=2`);
    const moved = await call('POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: posts[2], after: null },
    });
    expect(moved.status).toBe(200);
    const later = await call('GET', `${grid}?limit=2&cursor=${first.json.next_cursor}`);
    expect(later.json.grid_changed).toBe(true);
    await call('GET', `${grid}?min_version=${BigInt(moved.json.grid_version) + 5n}`);

    // 409 (anchor not on the grid; the 4th move of the window), then 429 (the 5th).
    const anchorless = await call('POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: posts[0], after: '123456789' },
    });
    expect(anchorless.status).toBe(409);
    expect(
      (await call('POST', '/v1/me/grid/moves', { token, body: { post_id: posts[1], after: null } }))
        .status,
    ).toBe(429);
    // 503: Cassandra answers nothing.
    expect((await call('GET', grid, {}, w.deadApp)).status).toBe(503);

    // Work that outlives its request (the dead node's statement
    // until the driver gives up) may still be in flight: wait, bounded, for the gauges to settle.
    let text = '';
    for (let i = 0; i < 60; i++) {
      const res = await w.app.request('/metrics');
      expect(res.status).toBe(200);
      text = await res.text();
      const busy = sample(text, 'regrid_cql_in_flight');
      if (busy === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const f of FAMILIES) expect(text, f).toContain(`# TYPE ${f} `);
    expect(text).not.toMatch(new RegExp(`${me}|${posts[0]}`)); // no IDs as labels

    const n = (name: string, labels?: Record<string, string>) => sample(text, name, labels);
    expect(n('regrid_grid_writes_total', { op: 'create', outcome: 'ok' })).toBe(5);
    expect(n('regrid_grid_writes_total', { op: 'move', outcome: 'ok' })).toBe(3);
    expect(n('regrid_grid_writes_total', { op: 'move', outcome: 'anchor_not_on_grid' })).toBe(1);
    expect(n('regrid_grid_writes_total', { op: 'move', outcome: 'rate_limited' })).toBe(1);
    expect(n('regrid_grid_write_duration_seconds_count', { op: 'move' })).toBe(5);
    // Every committed or skipped write observed its attempts; the 409 planner ran once too.
    expect(n('regrid_cas_attempts_count', { op: 'move' })).toBe(3);
    expect(n('regrid_rows_written_count', { op: 'move' })).toBe(3);
    expect(n('regrid_rate_limited_total')).toBe(1);
    expect(n('regrid_first_page_reads_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(n('regrid_first_page_reads_total', { result: 'miss' })).toBeGreaterThanOrEqual(2);
    // The dead app's read failed before it had a result: failed reads only count in HTTP.
    expect(n('regrid_cache_fills_total')).toBeGreaterThanOrEqual(2);
    expect(
      n('regrid_page_read_duration_seconds_count', { page: 'first', source: 'cache' }),
    ).toBeGreaterThanOrEqual(1);
    expect(n('regrid_page_read_duration_seconds_count', { page: 'later' })).toBe(1);
    expect(n('regrid_grid_changed_total')).toBe(1);
    expect(n('regrid_min_version_escalations_total')).toBeGreaterThanOrEqual(1);
    expect(
      n('regrid_http_requests_total', { route: '/v1/me/grid/moves', status_class: '2xx' }),
    ).toBe(3);
    expect(
      n('regrid_http_requests_total', { route: '/v1/me/grid/moves', status_class: '4xx' }),
    ).toBe(2);
    expect(
      n('regrid_http_requests_total', {
        route: '/v1/profiles/:profile_id/grid',
        status_class: '5xx',
      }),
    ).toBe(1);
    expect(n('regrid_cql_duration_seconds_count', { kind: 'cas' })).toBeGreaterThanOrEqual(8);
    expect(n('regrid_cql_duration_seconds_count', { kind: 'read' })).toBeGreaterThan(10);
    expect(
      n('regrid_cql_errors_total', { kind: 'read', error: 'unavailable' }),
    ).toBeGreaterThanOrEqual(1);
    expect(n('regrid_cql_in_flight')).toBe(0);
    expect(n('regrid_redis_breaker_open')).toBe(0);

    // As served in production: with the process and driver families (src/server.ts).
    collectProcessMetrics();
    watchDriver(w.client);
    const served = await (await w.app.request('/metrics')).text();
    const checked = promtool(['check', 'metrics'], served);
    if (!checked) {
      console.warn('promtool not on PATH: exposition not checked (scripts/ensure-promtool.sh)');
      return;
    }
    // promtool parses, then lints: both must pass on the exposition exactly as served.
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    const line = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(served)?.[1]);
    expect(line('regrid_cassandra_open_connections')).toBeGreaterThanOrEqual(1);
    expect(line('regrid_cassandra_driver_in_flight')).toBeGreaterThanOrEqual(0);
    const rules = promtool(['check', 'rules', 'docs/ops/alerts.yml'])!;
    expect(rules.status, rules.stdout + rules.stderr).toBe(0);
  });

  it('logs one JSON line per request with id, route, status and latency, never the token', async () => {
    const me = randomProfile();
    const token = await issueToken(JWT_SECRET, me);
    const created = await call('POST', '/v1/me/posts', {
      token,
      body: { caption: 'secret caption text' },
      headers: { 'x-request-id': 'obs-test-42' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('obs-test-42');
    // A write route sets it in its own header object, exactly once.
    const postId = (created.json as { post: { id: string } }).post.id;
    const moved = await call('POST', '/v1/me/grid/moves', {
      token,
      body: { post_id: postId, after: null },
      headers: { 'x-request-id': 'obs-test-45' },
    });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('x-request-id')).toBe('obs-test-45');
    // A grid page (its handler writes the header itself, once) and its 304 echo it too.
    const page = await call('GET', `/v1/profiles/${me}/grid`, {
      headers: { 'x-request-id': 'obs-test-43' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-request-id')).toBe('obs-test-43');
    const etag = page.headers.get('etag')!;
    const same = await call('GET', `/v1/profiles/${me}/grid`, {
      headers: { 'x-request-id': 'obs-test-44', 'if-none-match': etag },
    });
    expect(same.status).toBe(304);
    expect(same.headers.get('x-request-id')).toBe('obs-test-44');
    const insane = await call('GET', '/healthz', { headers: { 'x-request-id': 'bad id\u00e9' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const entries = w.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = entries.find((e) => e['req_id'] === 'obs-test-42');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'POST',
      route: '/v1/me/posts',
      status: 201,
      profile_id: me.toString(),
    });
    expect(typeof line!['latency_ms']).toBe('number');
    const all = w.lines.join('');
    expect(all).not.toContain(token);
    expect(all).not.toContain('secret caption text');
    // The 503 of the first test: logged at error with the driver's cause.
    const failed = entries.find((e) => e['status'] === 503);
    expect(failed).toMatchObject({ level: 50, code: 'unavailable' });
    expect(String(failed!['cause'])).toContain('NoHostAvailableError');
  });

  it('publishes regrid_audit_findings per round of `regrid audit --every --times`', async () => {
    const me = randomProfile();
    const token = await issueToken(JWT_SECRET, me);
    for (const caption of ['x', 'y'])
      expect((await call('POST', '/v1/me/posts', { token, body: { caption } })).status).toBe(201);
    // An override for a post that is not on the grid.
    await w.client.execute(
      'UPDATE grid_overrides SET sort_key = ? WHERE profile_id = ? AND post_id = ?',
      [5n, me, 424242n],
      { prepare: true },
    );
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    const args = ['audit', '--profile', me.toString(), '--every', '200ms', '--times', '2'];
    const started = Date.now();
    expect(await runRegrid(args, w.service, io)).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(out.filter((l) => l.startsWith('audited 1 profile(s): 1 with findings'))).toHaveLength(
      2,
    );
    const gauge = await registry.getSingleMetric('regrid_audit_findings')!.get();
    const value = (kind: string) => gauge.values.find((v) => v.labels['kind'] === kind)?.value;
    expect(value('orphan_override')).toBe(1);
    expect(value('duplicate_key')).toBe(0);
    expect(await runRegrid(['audit', '--every', 'soon'], w.service, io)).toBe(2);
  });
});
