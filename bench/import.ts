/**
 * `npm run bench:import`: how fast `regrid import` brings a platform's table in, against the raw
 * write ceiling of the same write statements, measured side by side in one run (alternating,
 * `--rounds` times, fresh profiles and fresh post IDs each time).
 *
 *   import   runImport over a source table of `--posts` posts, `--per-profile` per profile,
 *            `--parallel` slices at a time (service/import/): its reads, planning and writes.
 *   ceiling  the writes alone, per chunk of one profile's posts: the bodies (plain INSERTs, all at
 *            once), the conditional batch (version + post_count + effects), the logged batch of
 *            grid_posts rows (USING TIMESTAMP) + its stamp, the applied marker; same parallelism.
 *
 * Also per imported post: statements and bound bytes written (counted at the driver wrapper),
 * and the tombstone cells a traced full read of a sample of the imported partitions meets
 * (Cassandra's own accounting; expected 0). Keyspace `regrid_bench`, source `regrid_bench_src`.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { IdGenerator } from '../src/domain/ids.js';
import { GridService } from '../src/service/grid-service.js';
import { cqlSource } from '../src/service/import/sources.js';
import { runImport } from '../src/service/import/run-import.js';
import { consistencyOf, createCassandraClient, cqlOf, type Cql } from '../src/store/cassandra.js';
import { applyMigrations } from '../src/store/migrations.js';
import { SourceTable } from '../src/store/source-table.js';
import { tracePartition } from '../tools/loadtest/tombstones.js';
import { createSource, type SourceFixture } from '../test/integration/import/source-fixture.js';

const { values: args } = parseArgs({
  options: {
    posts: { type: 'string', default: '20000' },
    'per-profile': { type: 'string', default: '100' },
    parallel: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
  },
});
const POSTS = Number(args.posts);
const PER = Number(args['per-profile']);
const PARALLEL = Number(args.parallel);

const KEYSPACE = 'regrid_bench';
const config = loadConfig(process.env, { CASSANDRA_KEYSPACE: KEYSPACE });
const admin = createCassandraClient(config);
await admin.connect();
await applyMigrations(admin, config, KEYSPACE, { log: () => undefined });
const client = createCassandraClient(config, { keyspace: KEYSPACE });
await client.connect();

/** Write statements and the bytes of their bound values, counted as they are sent. */
const sent = { writes: 0, bytes: 0 };
const sizeOf = (v: unknown): number =>
  typeof v === 'bigint'
    ? 8
    : v instanceof Date
      ? 8
      : typeof v === 'string'
        ? Buffer.byteLength(v)
        : 0;
const countParams = (params: unknown[] | undefined) =>
  (params ?? []).reduce<number>((n, v) => n + sizeOf(v), 0);
const base = cqlOf(client);
const counting: Cql = {
  execute(query, params, options) {
    if (!/^\s*SELECT/i.test(query)) {
      sent.writes += 1;
      sent.bytes += countParams(params);
    }
    return base.execute(query, params, options);
  },
  batch(queries, options) {
    sent.writes += queries.length;
    for (const q of queries) sent.bytes += countParams(q.params);
    return base.batch(queries, options);
  },
};
const ids = new IdGenerator(8190);
const service = new GridService({
  cql: counting,
  config,
  ids,
  cursorSecret: 'bench-import-secret',
});
const consistency = consistencyOf(config);

const tableOf = (s: SourceFixture) =>
  new SourceTable(cqlOf(admin), consistency, s.keyspace, s.table, {
    profile: 'profile_id',
    post: 'post_id',
    created: 'created_at',
    caption: 'caption',
    media: 'media_url',
  });

async function fixture(seed: number): Promise<SourceFixture> {
  return createSource(admin, {
    keyspace: 'regrid_bench_src',
    profiles: POSTS / PER,
    postsPerProfile: PER,
    seed,
    firstProfile: ids.next(),
  });
}

async function importRun(s: SourceFixture) {
  sent.writes = 0;
  sent.bytes = 0;
  const t0 = process.hrtime.bigint();
  const totals = await runImport(
    (p, posts) => service.platform.importChunk(p, posts),
    cqlSource(tableOf(s), 32),
    {
      parallel: PARALLEL,
    },
  );
  const s_ = Number(process.hrtime.bigint() - t0) / 1e9;
  if (totals.imported !== POSTS)
    throw new Error(
      `imported ${totals.imported} of ${POSTS}: ${totals.issues.map((i) => `${i.at}: ${i.reason}`).join('; ')}`,
    );
  return { perS: POSTS / s_, writesPerPost: sent.writes / POSTS, bytesPerPost: sent.bytes / POSTS };
}

const Q = {
  body: 'INSERT INTO posts (post_id, author_id, caption, media_url, created_at) VALUES (?, ?, ?, ?, ?)',
  cas: 'UPDATE grid_overrides SET version = ? WHERE profile_id = ? IF version = ?',
  count: 'UPDATE grid_overrides SET post_count = ? WHERE profile_id = ?',
  effects: 'UPDATE grid_overrides SET effects = ? WHERE profile_id = ?',
  row: 'INSERT INTO grid_posts (profile_id, post_id, author_id) VALUES (?, ?, ?) USING TIMESTAMP ?',
  stamp: 'UPDATE grid_posts USING TIMESTAMP ? SET membership_version = ? WHERE profile_id = ?',
  mark: 'UPDATE grid_overrides USING TIMESTAMP ? SET applied_version = ? WHERE profile_id = ?',
};

/** The same writes with no reads and no planning, `PARALLEL` chunks at a time. */
async function ceilingRun(s: SourceFixture) {
  const chunks = [...s.profiles].map(([p, posts]) => ({ p: p + 1_000_000n, posts }));
  const write = { prepare: true, consistency: consistency.commit };
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    for (let c = chunks.shift(); c; c = chunks.shift()) {
      const { p, posts } = c;
      await Promise.all(
        posts.map((id) =>
          client.execute(Q.body, [id + 1n, p, 'p', 'https://cdn.example/x.jpg', new Date()], write),
        ),
      );
      const ts = BigInt(Date.now()) * 1000n;
      const effects = JSON.stringify({
        v: '1',
        ts: String(ts),
        ops: posts.map((id) => ({ op: 'grid_put', p: String(id), a: String(p) })),
      });
      await client.batch(
        [
          { query: Q.cas, params: [1n, p, null] },
          { query: Q.count, params: [BigInt(posts.length), p] },
          { query: Q.effects, params: [effects, p] },
        ],
        { ...write, serialConsistency: consistency.serial },
      );
      await client.batch(
        [
          ...posts.map((id) => ({ query: Q.row, params: [p, id, p, ts] })),
          { query: Q.stamp, params: [ts, 1n, p] },
        ],
        { ...write, logged: true },
      );
      await client.execute(Q.mark, [ts, 1n, p], write);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return { perS: POSTS / (Number(process.hrtime.bigint() - t0) / 1e9) };
}

console.log(`bench:import: ${POSTS} posts over ${POSTS / PER} profiles, ${PARALLEL} at a time`);
const rows: string[] = [];
let lastImport: SourceFixture | undefined;
for (let r = 1; r <= Number(args.rounds); r++) {
  // Alternate which runs first, so drift favours neither.
  const order = r % 2 ? (['import', 'ceiling'] as const) : (['ceiling', 'import'] as const);
  const out: Record<string, { perS: number; writesPerPost?: number; bytesPerPost?: number }> = {};
  for (const what of order) {
    const s = await fixture(1000 + r * 2 + (what === 'import' ? 0 : 1));
    out[what] = what === 'import' ? await importRun(s) : await ceilingRun(s);
    if (what === 'import') lastImport = s;
  }
  const i = out.import!;
  const c = out.ceiling!;
  rows.push(
    `round ${r}: import ${i.perS.toFixed(0)} posts/s, ceiling ${c.perS.toFixed(0)} posts/s, ratio ${(i.perS / c.perS).toFixed(3)}; ` +
      `${i.writesPerPost!.toFixed(2)} statements and ${i.bytesPerPost!.toFixed(0)} bound bytes written per post`,
  );
  console.log(rows.at(-1));
}

// Tombstones the import left, by Cassandra's own accounting, in a sample of its partitions.
const sample = [...lastImport!.profiles.keys()].slice(0, 20);
let tombstones = 0;
let live = 0;
for (const p of sample) {
  for (const table of ['grid_overrides', 'grid_posts']) {
    const t = await tracePartition(client, table, p);
    tombstones += t.tombstoneCells;
    live += t.liveRows;
  }
}
console.log(
  `tombstones: ${tombstones} tombstone cells in ${sample.length} imported profiles' two grid partitions (${live} live rows read, traced)`,
);
await Promise.all([client.shutdown(), admin.shutdown()]);
