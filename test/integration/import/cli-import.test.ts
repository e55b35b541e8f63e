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
import type { Config } from '../../../src/config.js';
import { composeId } from '../../../src/domain/ids.js';
import { createApp } from '../../../src/http/app.js';
import { GridService } from '../../../src/service/grid-service.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

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
    CACHE_LOCAL_TTL_MS: '0',
  });
  client = await connectTestClient(config);
  redis = createRedisGuard(config);
  await redis.waitReady(5000);
  raw = new Redis(config.REDIS_URL, { lazyConnect: false });
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

  it('reports every skipped line with its number and reason: --json all of them, the human report 10 and a count', async () => {
    const p = ids.next();
    const base = Date.UTC(2023, 6, 1) + Number(p % 1_000_000n);
    const good = composeId({ ms: base, worker: 6701, sequence: 1 });
    const lines = [JSON.stringify({ profile_id: String(p), post_id: String(good) })];
    for (let k = 0; k < 13; k++)
      lines.push(JSON.stringify({ profile_id: String(p), post_id: String(-1 - k) }));
    const dir = mkdtempSync(join(tmpdir(), 'regrid-cli-import-'));
    const file = join(dir, 'posts.ndjson');
    writeFileSync(file, lines.join('\n'));

    const json = await cli('import', '--from-ndjson', file, '--json');
    expect(json.code).toBe(1); // some lines were not imported
    const report = JSON.parse(json.out[0]!) as {
      imported: number;
      invalid: number;
      issues: { at: string; kind: string; reason: string }[];
    };
    expect(report.imported).toBe(1);
    expect(report.invalid).toBe(13);
    expect(report.issues.map((i) => i.at)).toEqual(
      Array.from({ length: 13 }, (_, k) => `line ${k + 2}`),
    );
    for (const i of report.issues) {
      expect(i.kind).toBe('invalid');
      expect(i.reason).toMatch(/post_id/);
    }

    const human = await cli('import', '--from-ndjson', file);
    expect(human.code).toBe(1);
    const listed = human.err.filter((l) => /^ {2}line \d+/.test(l));
    expect(listed).toHaveLength(10);
    expect(listed[0]).toMatch(/^ {2}line 2: invalid: post_id/);
    expect(human.err.some((l) => /and 3 more/.test(l))).toBe(true);
  }, 120_000);
});
