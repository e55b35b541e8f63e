/**
 * A hot profile: W concurrent writers move posts on ONE grid from one process, three ways side
 * by side in one run (order rotated per round), on the local node (keyspace `regrid_bench`, or
 * BENCH_KEYSPACE):
 *   - group: the per-profile queue with group commit (the defaults: the writes queued when a
 *     turn comes share one conditional batch);
 *   - queue: the queue alone, WRITE_GROUP_MAX_WRITES=1 (writes take turns, one batch each);
 *   - race: no queue, WRITE_QUEUE_MAX_WAIT_MS=0 (every writer races for the compare-and-set);
 * and, as the yardstick, the bare conditional-batch ceiling of ONE partition from ONE writer
 * (tools/loadtest/raw-ceiling.ts with concurrency 1: a one-row batch after the other, no
 * reads, no service). Prints moves/s, 503 contention answers, conditional batches per committed
 * move, and moves/s ÷ that ceiling. `npm run bench:hot -- [--writers 16 --moves 480 --rounds 2]`.
 * Bounded: every writer stops after its share of moves; one small warm-up run of each first.
 */
import { loadConfig, type Config } from '../src/config/config.js';
import { isDomainError } from '../src/domain/errors.js';
import { IdGenerator } from '../src/domain/ids.js';
import { GridService } from '../src/service/grid-service.js';
import { createCassandraClient, cqlOf, type Cql } from '../src/store/cassandra.js';
import { applyMigrations } from '../src/store/migrations.js';
import { measureRawCeiling } from '../tools/loadtest/raw-ceiling.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const WRITERS = arg('writers', 16);
const MOVES = arg('moves', 480);
const ROUNDS = arg('rounds', 2);
const POSTS = 24;

const KEYSPACE = process.env['BENCH_KEYSPACE'] ?? 'regrid_bench';
const base = loadConfig(process.env, {
  CASSANDRA_KEYSPACE: KEYSPACE,
  MOVE_RATE_LIMIT: '1000000',
});
const admin = createCassandraClient(base);
await admin.connect();
await applyMigrations(admin, base, KEYSPACE, { log: () => undefined });
await admin.shutdown();
const client = createCassandraClient(base, { keyspace: KEYSPACE });
await client.connect();

let casBatches = 0;
const raw = cqlOf(client);
const counting: Cql = {
  execute: (q, p, o) => raw.execute(q, p, o),
  batch: (qs, o) => {
    if (qs.some((s) => /\sIF\s/i.test(s.query))) casBatches += 1;
    return raw.batch(qs, o);
  },
};

const ids = new IdGenerator(8180);
const service = (env: Partial<Config>) =>
  new GridService({
    cql: counting,
    config: { ...base, ...env },
    ids,
    cursorSecret: 'bench-hot-cursor-secret-0123456789',
  });

interface Result {
  readonly movesPerS: number;
  readonly contention503: number;
  readonly casPerMove: number;
}

async function run(svc: GridService, moves = MOVES): Promise<Result> {
  const profile = ids.next();
  const posts: bigint[] = [];
  for (let i = 0; i < POSTS; i++) posts.push((await svc.createPost(profile, {})).value.postId);
  casBatches = 0;
  let ok = 0;
  let contention = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < moves / WRITERS; i++) {
        const post = posts[(w * 7 + i * 3) % POSTS]!;
        const after = i % 4 === 0 ? null : posts[(w + i * 5 + 1) % POSTS]!;
        if (after === post) continue;
        try {
          await svc.move(profile, post, after);
          ok += 1;
        } catch (err) {
          if (isDomainError(err) && err.code === 'contention') contention += 1;
          else throw err;
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { movesPerS: ok / secs, contention503: contention, casPerMove: casBatches / ok };
}

/** One writer, one partition, bare one-row conditional batches back to back. */
async function ceiling(): Promise<Result> {
  const c = await measureRawCeiling(client, base, {
    batches: MOVES,
    concurrency: 1,
    profileIds: [ids.next()],
    posts: POSTS,
  });
  return { movesPerS: c.perSecond, contention503: 0, casPerMove: 1 };
}

const svcOf = {
  group: service({}),
  queue: service({ WRITE_GROUP_MAX_WRITES: 1 }),
  race: service({ WRITE_QUEUE_MAX_WAIT_MS: 0 }),
};
const MODES = {
  group: () => run(svcOf.group),
  queue: () => run(svcOf.queue),
  race: () => run(svcOf.race),
  ceiling,
} as const;
type Mode = keyof typeof MODES;

const names = Object.keys(MODES) as Mode[];
// Warm-up, not reported: the first runs of a process pay for JIT compilation and connections.
for (const name of names) await (name === 'ceiling' ? ceiling() : run(svcOf[name], MOVES / 2));
const rows: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Rotate which goes first: the machine warms up and other load drifts.
  const order = names.map((_, i) => names[(i + r) % names.length]!);
  const got = new Map<Mode, Result>();
  for (const name of order) got.set(name, await MODES[name]());
  const top = got.get('ceiling')!.movesPerS;
  const cell = (m: Mode) => {
    const x = got.get(m)!;
    return `${x.movesPerS.toFixed(0)} | ${x.contention503} | ${x.casPerMove.toFixed(2)} | ${(x.movesPerS / top).toFixed(2)}`;
  };
  rows.push(
    `| ${r + 1} | ${top.toFixed(0)} | ${cell('group')} | ${cell('queue')} | ${cell('race')} |`,
  );
}
console.log(`hot profile: ${WRITERS} writers, ${MOVES} moves per run, one grid, one process`);
const head = (m: string) => `${m} moves/s | ${m} 503 | ${m} CAS/move | ${m} ÷ ceiling`;
console.log(
  `| round | ceiling batches/s | ${head('group')} | ${head('queue')} | ${head('race')} |`,
);
console.log(`| --- | --- |${' --- |'.repeat(12)}`);
for (const row of rows) console.log(row);
await client.shutdown();
