/**
 * `npx tsx bench/write-paths.ts`: what each grid write path costs in Cassandra, measured on the
 * local node (docs/write-paths.md quotes its output). For every path it counts, through a
 * counting wrapper around the driver:
 *   - statements sent (reads, plain writes, LWT statements, batches and their conditional ones),
 *   - LWT rounds (conditional statements/batches: each is one Paxos round, 2 round trips on v2),
 * and, by tracing a full read of the profile's two grid partitions afterwards, the tombstone
 * cells a reader now meets there (override partition and grid_posts separately).
 * Runs against keyspace `regrid_bench` (created/migrated here), fresh profiles each run.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config/config.js';
import { IdGenerator } from '../src/domain/ids.js';
import { createCassandraClient, cqlOf, type Cql } from '../src/store/cassandra.js';
import { applyMigrations } from '../src/store/migrations.js';
import { fetchReadTally } from '../tools/loadtest/cql-trace.js';
import { GridService } from '../src/service/grid-service.js';
import {
  IdempotencyService,
  fingerprintRequest,
  type IdempotentCall,
} from '../src/service/idempotency/idempotency.js';
import { IdempotencyStore } from '../src/store/idempotency-store.js';

const KEYSPACE = 'regrid_bench';
const config = loadConfig(process.env, { CASSANDRA_KEYSPACE: KEYSPACE });
const admin = createCassandraClient(config);
await admin.connect();
await applyMigrations(admin, config, KEYSPACE, { log: () => undefined });
await admin.shutdown();
const client = createCassandraClient(config, { keyspace: KEYSPACE });
await client.connect();

interface Tally {
  reads: number;
  writes: number;
  lwt: number;
  batches: number;
  condBatches: number;
  batchStatements: number;
  /** Every statement, in order (printed for the paths named in SHOW). */
  log: string[];
}
const zero = (): Tally => ({
  reads: 0,
  writes: 0,
  lwt: 0,
  batches: 0,
  condBatches: 0,
  batchStatements: 0,
  log: [],
});
let t = zero();
const isCond = (q: string) => /\sIF\s/i.test(q);
const base = cqlOf(client);
const counting: Cql = {
  execute(query, params, options) {
    t.log.push(query.replace(/\s+/g, ' ').slice(0, 110));
    if (/^\s*SELECT/i.test(query)) t.reads += 1;
    else if (isCond(query)) t.lwt += 1;
    else t.writes += 1;
    return base.execute(query, params, options);
  },
  batch(queries, options) {
    t.log.push(
      `BATCH of ${queries.length}: ${queries.map((q) => q.query.split(' ').slice(0, 4).join(' ')).join(' | ')}`,
    );
    t.batches += 1;
    t.batchStatements += queries.length;
    if (queries.some((q) => isCond(q.query))) t.condBatches += 1;
    return base.batch(queries, options);
  },
};

const ids = new IdGenerator(8191);
const grid = new GridService({
  cql: counting,
  config,
  ids,
  cursorSecret: 'bench-cursor-secret-0123456789',
});
const idem = new IdempotencyService(new IdempotencyStore(counting, config.IDEMPOTENCY_TTL_S), {
  heads: (p) => grid.readRequestRing(p),
  ttlS: config.IDEMPOTENCY_TTL_S,
  leaseMs: 30_000,
});

async function tombstones(profileId: bigint) {
  const out: Record<string, number> = {};
  for (const table of ['grid_overrides', 'grid_posts']) {
    const rs = await client.execute(`SELECT * FROM ${table} WHERE profile_id = ?`, [profileId], {
      prepare: true,
      traceQuery: true,
    });
    out[table] = (await fetchReadTally(client, rs.info.traceId)).tombstoneCells;
  }
  return out;
}

const rows: string[] = [];
/** The paths whose statements are printed after the table (docs/write-paths.md quotes them). */
const SHOW = ['move (midpoint', 'move with Idempotency-Key'];
const shown: string[] = [];

async function measure(name: string, profileId: bigint, op: () => Promise<unknown>) {
  const before = await tombstones(profileId);
  t = zero();
  await op();
  const cost = t;
  const after = await tombstones(profileId);
  const d = (k: string) => after[k]! - before[k]!;
  const lwtRounds = cost.lwt + cost.condBatches;
  if (SHOW.some((s) => name.startsWith(s)))
    shown.push(`${name}:`, ...cost.log.map((l) => `  ${l}`));
  rows.push(
    `| ${name} | ${cost.reads} | ${cost.writes} | ${cost.batches} (${cost.batchStatements} stmts) | ${lwtRounds} | +${d('grid_overrides')} / +${d('grid_posts')} |`,
  );
}

async function seeded(n: number): Promise<[bigint, bigint[]]> {
  const p = ids.next();
  const posts: bigint[] = [];
  for (let i = 0; i < n; i++) posts.push((await grid.createPost(p, {})).value.postId);
  return [p, posts];
}

const [p, posts] = await seeded(30);
const [a, b, c, d, e] = posts as [bigint, bigint, bigint, bigint, bigint];
await measure('create post', p, () => grid.createPost(p, {}));
await measure('create post, 2 collaborators', p, () =>
  grid.createPost(p, { collaborators: [ids.next(), ids.next()] }),
);
await measure('move (midpoint; every move writes its undo record)', p, () =>
  grid.move(p, c, a, { moveId: randomUUID() }),
);
const undoable = await grid.move(p, d, b, { moveId: randomUUID() });
await measure('undo, exact (nothing changed since)', p, () => grid.undoMove(p, undoable.moveId));
// One keyed request, sent twice: the second run must be a replay of the first.
const keyedMove: IdempotentCall = {
  scope: p,
  key: 'bench-1',
  fingerprint: fingerprintRequest({ method: 'POST', route: '/m', body: '1' }),
  gridProfileId: p,
  render: (_r: unknown, v: bigint) => ({ status: 200, body: { grid_version: String(v) } }),
};
await measure('move with Idempotency-Key', p, () =>
  idem.run(keyedMove, async (ticket) => {
    const out = await grid.move(p, b, e, {
      interceptor: idem.interceptor(ticket, p),
    });
    return { status: 200, body: { grid_version: String(out.version) } };
  }),
);
await measure('replay of that key', p, () =>
  idem.run(keyedMove, async () => ({ status: 200, body: {} })),
);
await measure('pin 2 posts', p, () => grid.setPins(p, [c, posts[10]!]));
await measure('unpin them', p, () => grid.setPins(p, []));
const o = await grid.readOrder(p);
const reordered = [...o.postIds];
reordered.splice(5, 0, ...reordered.splice(20, 3));
await measure('batch reorder (3 posts to another gap)', p, () =>
  grid.patchOrder(p, o.etag, { postIds: reordered }),
);
await measure('archive (post with override)', p, () => grid.archivePost(p, a));
await measure('unarchive previous', p, () => grid.unarchivePost(p, a, 'previous'));
await measure('delete post (with override)', p, () => grid.deletePost(p, a));
await measure('reset (all overrides)', p, () => grid.reset(p));
const [q, qposts] = await seeded(3);
const collab = await grid.createPost(q, { collaborators: [p] });
await measure('remove collaborator (its grid)', p, () =>
  grid.removeCollaborator(q, collab.value.postId, p),
);
await measure('takedown (1 grid)', q, () => grid.takedown(qposts[0]!));

console.log(
  '| write path | reads | plain writes | batches | LWT rounds | new tombstones (overrides / grid_posts) |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
console.log('\nStatements, in order:');
for (const l of shown) console.log(l);
await client.shutdown();
