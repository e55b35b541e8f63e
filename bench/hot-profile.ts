/**
 * A hot profile: W concurrent writers move posts on ONE grid from one process, with the
 * per-profile write queue (WRITE_QUEUE_MAX_WAIT_MS > 0, the default) and without it (every
 * writer races for the compare-and-set), side by side in one run, alternating the order, on the
 * local node (keyspace `regrid_bench`). Prints moves/s, 503 contention answers and conditional
 * batches sent per committed move, and the ratio queue / race. `npm run bench:hot -- [--writers
 * 16 --moves 480 --rounds 2]`. Bounded: every writer stops after its share of moves.
 */
import { loadConfig } from '../src/config.js';
import { isDomainError } from '../src/domain/errors.js';
import { IdGenerator } from '../src/domain/ids.js';
import { GridService } from '../src/service/grid-service.js';
import { createCassandraClient, cqlOf, type Cql } from '../src/store/cassandra.js';
import { applyMigrations } from '../src/store/migrations.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const WRITERS = arg('writers', 16);
const MOVES = arg('moves', 480);
const ROUNDS = arg('rounds', 2);
const POSTS = 24;

const KEYSPACE = 'regrid_bench';
const base = loadConfig({
  ...process.env,
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
const service = (queueMs: number) =>
  new GridService({
    cql: counting,
    config: { ...base, WRITE_QUEUE_MAX_WAIT_MS: queueMs },
    ids,
    cursorSecret: 'bench-hot-cursor-secret-0123456789',
  });

interface Result {
  readonly movesPerS: number;
  readonly contention503: number;
  readonly casPerMove: number;
}

async function run(svc: GridService): Promise<Result> {
  const profile = ids.next();
  const posts: bigint[] = [];
  for (let i = 0; i < POSTS; i++) posts.push((await svc.createPost(profile, {})).value.postId);
  casBatches = 0;
  let ok = 0;
  let contention = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < MOVES / WRITERS; i++) {
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

const queued = service(base.WRITE_QUEUE_MAX_WAIT_MS || 2000);
const racing = service(0);
const rows: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which goes first: the machine warms up and other load drifts.
  const order =
    r % 2 === 0
      ? ([
          ['queue', queued],
          ['race', racing],
        ] as const)
      : ([
          ['race', racing],
          ['queue', queued],
        ] as const);
  const got = new Map<string, Result>();
  for (const [name, svc] of order) got.set(name, await run(svc));
  const q = got.get('queue')!;
  const x = got.get('race')!;
  rows.push(
    `| ${r + 1} | ${q.movesPerS.toFixed(0)} | ${q.contention503} | ${q.casPerMove.toFixed(2)} | ` +
      `${x.movesPerS.toFixed(0)} | ${x.contention503} | ${x.casPerMove.toFixed(2)} | ${(q.movesPerS / x.movesPerS).toFixed(2)} |`,
  );
}
console.log(`hot profile: ${WRITERS} writers, ${MOVES} moves per run, one grid, one process`);
console.log(
  '| round | queue moves/s | queue 503 | queue CAS/move | race moves/s | race 503 | race CAS/move | queue ÷ race |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
await client.shutdown();
