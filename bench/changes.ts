/**
 * What publishing the change stream costs the write path, and how late the events are: the same
 * move workload through two services over one Cassandra client and one Redis, side by side in one
 * run (order rotated per round): CHANGES_STREAM=on and CHANGES_STREAM=off (the change log is
 * written by both: it is part of every batch). Each run: W writers, each moving posts on its own
 * grid (uncontended) or all on one grid (--hot). Prints moves/s of each, their ratio (on ÷ off),
 * and the publish lag of the `on` runs, p50/p99: from the version being planned (the event's
 * `at`) to its XADD (the stream entry ID's milliseconds, Redis's clock on the same machine).
 * `npx tsx bench/changes.ts [--writers 16 --moves 800 --rounds 3 --hot]`; keyspace
 * `regrid_bench` (or BENCH_KEYSPACE), stream keys under a prefix of the run's own (deleted at the
 * end). Bounded: every writer stops after its share of moves.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisGuard } from '../src/cache/redis.js';
import { changesPublishFailures, changesRolledForward } from '../src/obs/change-metrics.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { IdGenerator } from '../src/domain/ids.js';
import { GridService } from '../src/service/grid-service.js';
import { createCassandraClient, cqlOf } from '../src/store/cassandra.js';
import { applyMigrations } from '../src/store/migrations.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const WRITERS = arg('writers', 16);
const MOVES = arg('moves', 800);
const ROUNDS = arg('rounds', 3);
const HOT = process.argv.includes('--hot');
const POSTS = 24;
const PREFIX = `regrid_bench_changes:${randomBytes(3).toString('hex')}:`;

const KEYSPACE = process.env['BENCH_KEYSPACE'] ?? 'regrid_bench';
const base = loadConfig(process.env, {
  CASSANDRA_KEYSPACE: KEYSPACE,
  MOVE_RATE_LIMIT: '1000000',
  CHANGES_KEY_PREFIX: PREFIX,
  CHANGES_SWEEP_INTERVAL_MS: '0',
});
const admin = createCassandraClient(base);
await admin.connect();
await applyMigrations(admin, base, KEYSPACE, { log: () => undefined });
await admin.shutdown();
const client = createCassandraClient(base, { keyspace: KEYSPACE });
await client.connect();
const redis = createRedisGuard(base);
await redis.waitReady(5000);
const raw = new Redis(base.REDIS_URL);

const ids = new IdGenerator(8170);
const service = (env: Partial<Config>) =>
  new GridService({
    cql: cqlOf(client),
    config: { ...base, ...env },
    ids,
    cursorSecret: 'bench-changes-cursor-secret-0123456789',
    redis,
  });
const svc = { on: service({ CHANGES_STREAM: 'on' }), off: service({ CHANGES_STREAM: 'off' }) };
type Mode = keyof typeof svc;

async function grid(s: GridService): Promise<{ profile: bigint; posts: bigint[] }> {
  const profile = ids.next();
  const posts: bigint[] = [];
  for (let i = 0; i < POSTS; i++) posts.push((await s.createPost(profile, {})).value.postId);
  return { profile, posts };
}

interface Run {
  readonly movesPerS: number;
  /** Node CPU (user + system) per committed move, µs: the process's own cost, less noisy. */
  readonly cpuUs: number;
  readonly profiles: bigint[];
}

async function run(mode: Mode, moves = MOVES): Promise<Run> {
  const s = svc[mode];
  const grids = HOT
    ? [await grid(s)]
    : await Promise.all(Array.from({ length: WRITERS }, () => grid(s)));
  let ok = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const { profile, posts } = grids[HOT ? 0 : w]!;
      for (let i = 0; i < moves / WRITERS; i++) {
        const post = posts[(w * 7 + i * 3) % POSTS]!;
        const after = i % 4 === 0 ? null : posts[(w + i * 5 + 1) % POSTS]!;
        if (after === post) continue;
        try {
          await s.move(profile, post, after);
          ok += 1;
        } catch {
          // contention (hot): not a move
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / ok;
  return { movesPerS: ok / secs, cpuUs, profiles: grids.map((g) => g.profile) };
}

/** Publish lags (ms) of the events of `profiles`: XADD time − planned time. */
async function lags(profiles: readonly bigint[]): Promise<number[]> {
  const wanted = new Set(profiles.map(String));
  const out: number[] = [];
  for (let shard = 0; shard < base.CHANGES_STREAM_SHARDS; shard++) {
    for (const [id, fields] of await raw.xrange(`${PREFIX}changes:{${shard}}`, '-', '+')) {
      const e = JSON.parse(fields[1]!) as { profile_id: string; at: string };
      if (wanted.has(e.profile_id)) out.push(Number(id.split('-')[0]) - Date.parse(e.at));
    }
  }
  return out.sort((a, b) => a - b);
}
const pct = (xs: readonly number[], p: number) =>
  xs.length === 0 ? NaN : xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

await run('on', MOVES / 4); // warm-up, not reported
await run('off', MOVES / 4);
const rows: string[] = [];
const ratios: number[] = [];
const cpuRatios: number[] = [];
const allLags: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const order: Mode[] = r % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
  const got = new Map<Mode, Run>();
  for (const m of order) got.set(m, await run(m));
  await new Promise((res) => setTimeout(res, 200)); // the last publishes (not awaited by moves)
  const l = await lags(got.get('on')!.profiles);
  allLags.push(...l);
  const on = got.get('on')!.movesPerS;
  const off = got.get('off')!.movesPerS;
  ratios.push(on / off);
  const [cpuOn, cpuOff] = [got.get('on')!.cpuUs, got.get('off')!.cpuUs];
  cpuRatios.push(cpuOn / cpuOff);
  rows.push(
    `| ${r + 1} | ${off.toFixed(0)} | ${on.toFixed(0)} | ${(on / off).toFixed(2)} | ${cpuOff.toFixed(0)} | ${cpuOn.toFixed(0)} | ${l.length} | ${pct(l, 50)} | ${pct(l, 99)} |`,
  );
}
allLags.sort((a, b) => a - b);
ratios.sort((a, b) => a - b);
cpuRatios.sort((a, b) => a - b);
const geo = Math.exp(ratios.reduce((n, r) => n + Math.log(r), 0) / ratios.length);
console.log(
  `change stream cost: ${WRITERS} writers, ${MOVES} moves per run, ${HOT ? 'one grid' : 'a grid per writer'}, one process`,
);
console.log(
  '| round | off moves/s | on moves/s | on ÷ off | off µs CPU/move | on µs CPU/move | events | lag p50 ms | lag p99 ms |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
console.log(
  `on ÷ off over ${ratios.length} rounds: median ${pct(ratios, 50).toFixed(2)}, geometric mean ${geo.toFixed(2)}`,
);
console.log(`Node CPU per move, on ÷ off: median ${pct(cpuRatios, 50).toFixed(2)}`);
console.log(
  `all rounds: publish lag p50 ${pct(allLags, 50)} ms, p99 ${pct(allLags, 99)} ms (${allLags.length} events)`,
);
const total = async (c: typeof changesRolledForward | typeof changesPublishFailures) =>
  (await c.get()).values.map((v) => `${Object.values(v.labels).join('/')}=${v.value}`).join(' ');
console.log(
  `redis failures: ${(await total(changesPublishFailures)) || 'none'}; rolled forward: ${(await total(changesRolledForward)) || 'none'}`,
);
const keys = await raw.keys(`${PREFIX}*`);
if (keys.length > 0) await raw.del(...keys);
raw.disconnect();
await redis.close();
await client.shutdown();
