/**
 * What one conditional batch on `grid_overrides` costs the local node, by what it carries and by
 * how fast requests arrive: `npx tsx bench/cas-cost.ts [--batches 8000] [--rounds 2]`.
 *
 * 16 writers on distinct partitions send one-row batches back to back (the load tester's raw
 * ceiling, tools/loadtest/raw-ceiling.ts), in these shapes, interleaved round by round:
 *   - bare: `IF version = ?` + one override upsert (the ceiling's shape);
 *   - + a 2 KB static blob (a whole 32-entry undo ring, what every move wrote before the ring
 *     was bucketed) and + a 300 B blob (one bucket of it, domain/undo-ring.ts);
 *   - bare, each writer first spinning 150, 300 or 550 µs of Node CPU per batch (what the service
 *     spends planning a move): no more Cassandra work per batch, only fewer batches a second.
 * For each: batches/s, and Node and Cassandra (the node's JVM, from /proc: this project's own
 * node only) CPU per batch. On 2 shared cores the last two rows show the node's CPU per request
 * rising as the request rate falls, which is why a move's Node CPU decides its ceiling ratio.
 * Keyspace `regrid_bench` (migrated first); fresh partitions per step.
 */
import { parseArgs } from 'node:util';
import { types } from 'cassandra-driver';
import { openIdGenerator } from '../src/bootstrap.js';
import { loadConfig } from '../src/config/config.js';
import { buildCasStatements, type CqlStatement } from '../src/store/grid-mutation.js';
import { nodeLayout } from '../tools/infra/cassandra-files.js';
import { liveNodePid } from '../tools/infra/embedded-cassandra.js';
import { processCpuMs } from '../tools/infra/process-cpu.js';
import { openLocalCassandra } from '../tools/infra/dev-stores.js';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '8000' },
    rounds: { type: 'string', default: '2' },
  },
});
const BATCHES = Number(args.batches);
const ROUNDS = Number(args.rounds);
const WRITERS = 16;
const config = { ...loadConfig(), CASSANDRA_KEYSPACE: 'regrid_bench' };
const session = await openLocalCassandra(config, () => {});
const client = session.client;
// A leased ID worker: the partitions are fresh profile IDs, never one a server issued.
const { ids, lease } = await openIdGenerator(session.cql, config, (w, why) => {
  throw new Error(`lost worker lease ${w}: ${why}`);
});
const jvm = liveNodePid(nodeLayout(config));
const jvmMs = () => processCpuMs(jvm);
const options = {
  prepare: true,
  consistency: types.consistencies[config.CASSANDRA_CONSISTENCY],
  serialConsistency: types.consistencies[config.CASSANDRA_SERIAL_CONSISTENCY],
};

interface Shape {
  readonly name: string;
  readonly blob?: Buffer;
  readonly busyUs?: number;
}
const SHAPES: readonly Shape[] = [
  { name: 'bare' },
  { name: '+ 2 KB static blob', blob: Buffer.alloc(2000, 7) },
  { name: '+ 300 B static blob', blob: Buffer.alloc(300, 7) },
  { name: 'bare, 150 µs Node per batch', busyUs: 150 },
  { name: 'bare, 300 µs Node per batch', busyUs: 300 },
  { name: 'bare, 550 µs Node per batch', busyUs: 550 },
];

const spin = (us: number) => {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
};

function statements(s: Shape, profileId: bigint, expected: bigint, n: number): CqlStatement[] {
  const next = expected + 1n;
  const out = buildCasStatements(profileId, expected, next, {
    upserts: [{ postId: BigInt((n % 48) + 1), sortKey: next * 1_000_003n, movedVersion: next }],
  });
  if (s.blob) {
    out.push({
      query: 'UPDATE grid_overrides SET recent_moves_1 = ? WHERE profile_id = ?',
      params: [s.blob, profileId],
    });
  }
  return out;
}

async function step(s: Shape) {
  const versions = Array.from({ length: WRITERS }, () => 0n);
  const profiles = versions.map(() => ids.next());
  let issued = 0;
  const jvm0 = jvmMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    profiles.map(async (p, w) => {
      for (let n = 0; issued++ < BATCHES; n++) {
        if (s.busyUs) spin(s.busyUs);
        const rs = await client.batch(statements(s, p, versions[w]!, n), options);
        if (!rs.wasApplied()) throw new Error(`a batch on ${p} lost: nobody else writes there`);
        versions[w]! += 1n;
      }
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    perS: (BATCHES / ms) * 1000,
    nodeMs: (cpu.user + cpu.system) / 1000 / BATCHES,
    jvmMs: jvm === undefined ? undefined : (jvmMs() - jvm0) / BATCHES,
  };
}

try {
  console.log(
    `${BATCHES} one-row conditional batches per step, ${WRITERS} writers on distinct partitions`,
  );
  console.log('round | shape | batches/s | Node ms/batch | Cassandra ms/batch');
  for (let r = 1; r <= ROUNDS; r++) {
    for (const s of SHAPES) {
      const f = await step(s);
      const nodeCpu = f.jvmMs === undefined ? 'n/a (not this project’s node)' : f.jvmMs.toFixed(3);
      console.log(`${r} | ${s.name} | ${f.perS.toFixed(0)} | ${f.nodeMs.toFixed(3)} | ${nodeCpu}`);
    }
  }
} finally {
  await lease.release();
  await client.shutdown();
}
