/**
 * `regrid import` as the CLI runs it (src/cli/cmd-import.ts, on the real Cassandra and Redis): an
 * import chunk goes through the same write line as any API write, so
 *   - a grid whose first page is cached shows the imported post at once (the commit drops the
 *     cached state, as for any write), and
 *   - the import's version is in the change stream without any later write of the profile;
 * the report lists every skipped line with its line number and reason (`--json` all of them, the
 * human report the first 10 and how many more), and `regrid audit` is clean afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'cassandra-driver';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredTarget, type FindCassandra } from '../../../src/bootstrap.js';
import { shardOf, streamKeys } from '../../../src/cache/change-stream.js';
import { createRedisGuard, type RedisGuard } from '../../../src/cache/redis.js';
import { runCli } from '../../../src/cli/cli-main.js';
import { productCommands } from '../../../src/cli/commands.js';
import type { Config } from '../../../src/config/config.js';
import { composeId } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';
import { rawRedis } from '../support/tls-clients.js';

const prefix = `regrid_t_import:${randomBytes(4).toString('hex')}:`;
let config: Config;
let client: Client;
let redis: RedisGuard;
let raw: Redis;
let service: GridService;
let app: ReturnType<typeof createApp>;
const ids = idsFromWorkers(7750, 20);

beforeAll(async () => {
  // The local rendered-page tier off: what a reader sees is what Redis and Cassandra hold.
  config = testConfig({
    REDIS_TIMEOUT_MS: '2000',
    CHANGES_KEY_PREFIX: prefix,
    CHANGES_STREAM_SHARDS: '4',
    CHANGES_SWEEP_INTERVAL_MS: '0',
  });
  client = await connectTestClient(config);
  redis = createRedisGuard(config);
  await redis.waitReady(5000);
  raw = rawRedis(config, { lazyConnect: false });
  service = new GridService({
    cql: cqlOf(client),
    config,
    ids,
    cursorSecret: 'cli-import-tests-cursor-secret',
    redis,
  });
  app = createApp({
    service,
    jwtSecret: 'cli-import-tests-jwt-secret-0123456789',
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(client), redis }),
  });
}, 60_000);

afterAll(async () => {
  const keys = await raw.keys(`${prefix}*`); // only this file's stream keys
  if (keys.length > 0) await raw.del(...keys);
  raw.disconnect();
  await redis.close();
  await client.shutdown();
});

/** The CLI as installed, on this file's configuration (its stream prefix, the test keyspace). */
async function cli(...argv: string[]) {
  const find: FindCassandra = async () => ({ config, target: configuredTarget(config) });
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, productCommands(find)); // prettier-ignore
  return { code, out, err };
}

async function events(profileId: bigint) {
  const { stream } = streamKeys(prefix, shardOf(profileId, config.CHANGES_STREAM_SHARDS));
  return (await raw.xrange(stream, '-', '+'))
    .map(
      ([, fields]) =>
        JSON.parse(fields[1]!) as {
          profile_id: string;
          version: string;
          kind: string;
          post_ids: string[];
        },
    ) // prettier-ignore
    .filter((e) => e.profile_id === profileId.toString());
}

async function waitEvents(profileId: bigint, n: number) {
  const until = Date.now() + 10_000;
  for (;;) {
    const got = await events(profileId);
    if (got.length >= n || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function gridPage(profileId: bigint) {
  const res = await app.request(`/v1/profiles/${profileId}/grid?limit=20`);
  expect(res.status).toBe(200);
  return (await res.json()) as { items: { id: string }[]; grid_version: string; post_count?: string }; // prettier-ignore
}

describe('regrid import through the write line', () => {
  it('a cached grid shows the imported posts at once, and their version is in the change stream without a later write', async () => {
    const p = ids.next();
    const own = (await service.createPost(p, { caption: 'mine' })).value.postId; // v1
    const first = await gridPage(p);
    expect(first.items.map((i) => i.id)).toEqual([String(own)]);
    expect((await gridPage(p)).grid_version).toBe('1'); // cached now

    const base = Date.UTC(2023, 4, 1) + Number(p % 1_000_000n);
    const old = [1, 2].map((k) => composeId({ ms: base + k * 1000, worker: 6700, sequence: k }));
    const dir = mkdtempSync(join(tmpdir(), 'regrid-cli-import-'));
    const file = join(dir, 'posts.ndjson');
    writeFileSync(
      file,
      old.map((id) => JSON.stringify({ profile_id: String(p), post_id: String(id) })).join('\n'),
    );
    const run = await cli('import', '--from-ndjson', file, '--json');
    expect(run.code, run.err.join('\n')).toBe(0);

    // At once: no waiting for the cached page to expire.
    const after = await gridPage(p);
    expect(after.grid_version).toBe('2');
    expect(after.items.map((i) => i.id)).toEqual([own, old[1]!, old[0]!].map(String));
    expect(after.post_count).toBe('3');

    // No write of the profile after the import: the stream has its version all the same.
    const published = await waitEvents(p, 2);
    expect(published.map((e) => [e.version, e.kind])).toEqual([
      ['1', 'created'],
      ['2', 'imported'],
    ]);
    expect([...published[1]!.post_ids].sort()).toEqual(old.map(String).sort());

    expect(JSON.parse(run.out[0]!)).toMatchObject({ imported: 2, versions_bumped: 1, issues: [] });
    const audit = await cli('audit', '--profile', String(p), '--json');
    expect(audit.code, audit.out.join('\n')).toBe(0);
  }, 120_000);

  it('reports every skipped line with its number and reason (--json all of them, the human report 10 and a count); the grid holds the valid rows once and the audit is clean', async () => {
    const p = ids.next();
    const base = Date.UTC(2023, 6, 1) + Number(p % 1_000_000n);
    const good = [1, 2].map((k) => composeId({ ms: base + k, worker: 6701, sequence: k }));
    const row = (post: string, more: Record<string, unknown> = {}) =>
      JSON.stringify({ profile_id: String(p), post_id: post, ...more });
    const lines = [
      row(String(good[0])), // 1
      row(String(good[0])), // 2: the same line again
      row(String(good[1]), { caption: 'x'.repeat(1_000_000) }), // 3
      row(String(good[1]), { media_url: 'javascript:alert(1)' }), // 4
      row('0'), // 5
      row('9223372036854775808'), // 6: 2^63
      JSON.stringify({ profile_id: '9999999999999999999', post_id: String(good[1]) }), // 7
    ];
    for (let k = 0; k < 8; k++) lines.push(row(String(-1 - k))); // 8..15
    const dir = mkdtempSync(join(tmpdir(), 'regrid-cli-import-'));
    const file = join(dir, 'posts.ndjson');
    writeFileSync(file, lines.join('\n'));

    const json = await cli('import', '--from-ndjson', file, '--json');
    expect(json.code).toBe(1); // some lines were not imported
    const report = JSON.parse(json.out[0]!) as {
      imported: number;
      invalid: number;
      duplicates: number;
      issues: { at: string; kind: string; reason: string }[];
    };
    expect([report.imported, report.invalid, report.duplicates]).toEqual([1, 13, 1]);
    // In the order met: a chunk's duplicates once the chunk is complete, after its invalid rows.
    const lineOf = (at: string) => Number(/^line (\d+)$/.exec(at)?.[1]);
    expect(report.issues.map((i) => lineOf(i.at)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 14 }, (_, k) => k + 2),
    );
    const why = new Map(report.issues.map((i) => [i.at, `${i.kind}: ${i.reason}`]));
    expect(why.get('line 2')).toMatch(/^duplicate: .*line 1\b/);
    expect(why.get('line 3')).toMatch(/^invalid: caption/);
    expect(why.get('line 4')).toMatch(/^invalid: media_url/);
    expect(why.get('line 5')).toMatch(/^invalid: post_id/);
    expect(why.get('line 6')).toMatch(/^invalid: post_id.*range/);
    expect(why.get('line 7')).toMatch(/^invalid: profile_id.*range/);
    for (let n = 8; n <= 15; n++) expect(why.get(`line ${n}`)).toMatch(/^invalid: post_id/);

    const human = await cli('import', '--from-ndjson', file);
    expect(human.code).toBe(1);
    const listed = human.err.filter((l) => /^ {2}line \d+/.test(l));
    expect(listed).toHaveLength(10);
    expect(listed[0]).toMatch(/^ {2}line 3: invalid: caption/);
    expect(human.err.some((l) => /and 4 more/.test(l))).toBe(true);

    expect((await service.readOrder(p)).postIds).toEqual([good[0]]);
    expect((await service.readHead(p)).postCount).toBe(1n);
    const audit = await cli('audit', '--profile', String(p), '--json');
    expect(audit.code, audit.out.join('\n')).toBe(0);
  }, 120_000);
});
