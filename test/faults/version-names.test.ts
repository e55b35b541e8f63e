/**
 * One version, one state (issue 31): a grid's (generation, version) names one state forever.
 *
 * The private node is SIGKILLed while movers (one per grid, each retrying a move of unknown
 * outcome with its Idempotency-Key, as cassandra-kill.test.ts does) and readers run, then started
 * again on its data, and the movers go on. Twice:
 *   1. with the development default commit log (durable: synced before a write is acknowledged),
 *      where no acknowledged move may be lost;
 *   2. with CASSANDRA_COMMITLOG_SYNC=periodic set explicitly: the node acknowledges writes before
 *      they are synced, so a kill loses the last acknowledged versions. The service must not
 *      issue those names again for other states: the grid moves to a new generation instead.
 *
 * Collected: every batch the writer committed (its change records: name → what it changed),
 * every acknowledged move (the ETag of its response, and "P right after A"), every first page
 * read (name → order) and every change-stream event. What must hold, in both runs: no name
 * committed twice; no name read with two orders, or with an order that contradicts a move
 * acknowledged under it; no name with two different events, or an event other than what
 * committed under it.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf, streamKeys } from '../../src/cache/change-stream.js';
import { parseEtag } from '../../src/domain/etag.js';
import type { CommitEvent } from '../../src/service/write-line/write-line.js';
import { sleep } from '../../tools/infra/process-utils.js';
import {
  freshProfile,
  openInstance,
  readWholeGrid,
  seedGrid,
  type Instance,
} from './support/instance.js';
import { runNodetool } from '../../tools/infra/nodetool.js';
import {
  FAULTS_KEYSPACE,
  FAULTS_REDIS_PORT,
  faultsConfig,
  nodeWithCommitlog,
  restartNode,
  runningCommitlogSync,
  signalNode,
  waitGone,
} from './support/private-stores.js';
import { RunLog, runMover, type Grid } from './support/workload.js';

const POSTS = 12;
// Many grids, one mover each: a kill with `periodic` loses the writes since the commit log's last
// marker (about 100 ms), so the more moves in flight then, the likelier it loses acknowledged ones.
const GRIDS = 16;
const READ_GRIDS = 4;
const SHARDS = 4;
/** Acknowledged moves before the kill (at least), then RUN_BEFORE_MS more of them. */
const WARM_ACKS = 60;
const RUN_BEFORE_MS = 2_000;
const RUN_AFTER_MS = 4_000;
/** Kills with `periodic` until one lost acknowledged versions (each costs a node restart). */
const MAX_PERIODIC_KILLS = 3;
const RECOVERY_BUDGET_MS = 60_000;
const PREFIX = `regrid_faults_names:${randomBytes(3).toString('hex')}:`;
// Compressed, a periodic commit log writes its sync markers only at each sync (every 10 s), not
// every 100 ms: a kill then loses the last seconds of acknowledged moves, not the last few ms.
const PERIODIC = { CASSANDRA_COMMITLOG_SYNC: 'periodic', CASSANDRA_COMMITLOG_COMPRESSION: 'lz4' };

const say = (line: string) => console.log(`[version names] ${line}`);

let inst: Instance;
let raw: Redis;
/** Every batch the writer committed, in commit order. */
const commits: Array<{ profileId: bigint; at: number; records: CommittedName[] }> = [];
interface CommittedName {
  readonly generation: bigint;
  readonly version: bigint;
  readonly what: string;
}

beforeAll(async () => {
  inst = await openInstance(
    faultsConfig({
      CASSANDRA_REQUEST_TIMEOUT_MS: '3000',
      CHANGES_KEY_PREFIX: PREFIX,
      CHANGES_STREAM_SHARDS: String(SHARDS),
    }),
  );
  inst.service.writer.afterEachCommit((e: CommitEvent) => {
    const from = e.before.head.version;
    const records = (e.mutation.statics?.changeLog?.records ?? []).filter(
      (r) => r.version > from && r.version <= e.version,
    );
    commits.push({
      profileId: e.profileId,
      at: Date.now(),
      records: records.map((r) => ({
        generation: r.generation,
        version: r.version,
        what: `${r.kind}:${r.postIds.join(',')}`,
      })),
    });
  });
  raw = new Redis(`redis://127.0.0.1:${FAULTS_REDIS_PORT}`);
});
afterAll(async () => {
  raw?.disconnect();
  await inst?.close();
  // The other fault files assume the suite's node in its default (durable) commit log mode: a
  // node left periodic+lz4 here loses their seeded posts at their own kills (CI run 2).
  await nodeWithCommitlog(say);
});

interface Read {
  readonly profileId: bigint;
  readonly name: string;
  readonly order: readonly bigint[];
}

const nameOf = (g: bigint, v: bigint) => `${g}.${v}`;

/** First pages read through the service's caches, one grid at a time, until `until()`. */
async function runReader(profileId: bigint, reads: Read[], until: () => number): Promise<void> {
  while (Date.now() < until()) {
    try {
      const page = await inst.service.pages.page({ profileId, limit: 100 });
      const order = page.items.map((p) => p.postId);
      reads.push({ profileId, name: nameOf(page.generation, page.version), order });
    } catch {
      // The node is down: the next read.
    }
    await sleep(40);
  }
}

/** The events of `profileId` in its shard's stream, as (name, what). */
async function eventsOf(profileId: bigint): Promise<Array<{ name: string; what: string }>> {
  const { stream } = streamKeys(PREFIX, shardOf(profileId, SHARDS));
  const entries = await raw.xrange(stream, '-', '+');
  return entries.flatMap(([, fields]) => {
    const e = JSON.parse(fields[1]!) as Record<string, string | string[]>;
    if (e.profile_id !== profileId.toString()) return [];
    const name = nameOf(BigInt(e.generation as string), BigInt(e.version as string));
    return [{ name, what: `${e.kind as string}:${(e.post_ids as string[]).join(',')}` }];
  });
}

interface Run {
  readonly grids: Grid[];
  readonly log: RunLog;
  readonly reads: Read[];
  readonly killedAt: number;
  readonly upAt: number;
  readonly firstCommit: number;
}

/** Movers and readers on fresh grids; SIGKILL after RUN_BEFORE_MS; restart with `env`. */
async function killUnderMoves(env: Record<string, string>, tag: string): Promise<Run> {
  const firstCommit = commits.length;
  await untilAnswers();
  const grids: Grid[] = [];
  for (let i = 0; i < GRIDS; i++) {
    const profileId = freshProfile();
    grids.push({ profileId, initial: await seedGrid(inst, profileId, POSTS) });
  }
  // The seeded posts are the test's premise, not what it measures: flushed to SSTables, so a
  // periodic commit log's kill can lose only the moves (else a mover meets its own post gone).
  await runNodetool(['flush', FAULTS_KEYSPACE], faultsConfig());
  const log = new RunLog();
  const reads: Read[] = [];
  let stopAt = Infinity;
  const work = [
    ...grids.map((grid, n) =>
      runMover(inst, log, {
        name: `${tag}${n}`,
        seed: 300 + n,
        grids: () => [grid],
        until: () => stopAt,
        resolveBy: () => stopAt + 20_000,
      }),
    ),
    ...grids.slice(0, READ_GRIDS).map((g) => runReader(g.profileId, reads, () => stopAt)),
  ];
  const warmBy = Date.now() + 60_000;
  while (log.acked().length < WARM_ACKS && Date.now() < warmBy) await sleep(50);
  await sleep(RUN_BEFORE_MS);
  const pid = signalNode('SIGKILL');
  const killedAt = Date.now();
  let upAt = 0;
  let recoveredAt: number | undefined;
  try {
    await waitGone(pid);
    await restartNode((l) => say(l), env);
    upAt = Date.now();
    while (Date.now() < upAt + RECOVERY_BUDGET_MS && recoveredAt === undefined) {
      recoveredAt = log.acked().find((m) => m.at > upAt)?.at;
      await sleep(20);
    }
  } finally {
    stopAt = (recoveredAt ?? Date.now()) + RUN_AFTER_MS;
  }
  await Promise.all(work);
  expect(recoveredAt, 'the service acknowledged moves again after the restart').toBeDefined();
  return { grids, log, reads, killedAt, upAt, firstCommit };
}

/** Waits until the instance's driver answers again (it reconnects on its own after a restart). */
async function untilAnswers(): Promise<void> {
  for (let i = 0; ; i++) {
    const ok = await inst.client.execute('SELECT release_version FROM system.local').then(
      () => true,
      () => false,
    );
    if (ok) return;
    if (i >= 300) throw new Error('the restarted node did not answer the service within 60 s');
    await sleep(200);
  }
}

/** Every way one name could have been given to two states (see the header); [] when none. */
async function nameViolations(run: Run): Promise<string[]> {
  const out: string[] = [];
  const mine = new Set(run.grids.map((g) => g.profileId));
  for (const profileId of mine) {
    const p = `grid ${profileId}`;
    const committed = new Map<string, string>();
    for (const c of commits.slice(run.firstCommit)) {
      if (c.profileId !== profileId) continue;
      for (const r of c.records) {
        const name = nameOf(r.generation, r.version);
        const before = committed.get(name);
        if (before !== undefined) out.push(`${p}: ${name} committed twice (${before}; ${r.what})`);
        committed.set(name, r.what);
      }
    }
    const orders = new Map<string, string>();
    const readOrders = new Map<string, readonly bigint[]>();
    for (const r of run.reads) {
      if (r.profileId !== profileId) continue;
      const o = r.order.join(',');
      const before = orders.get(r.name);
      if (before !== undefined && before !== o) out.push(`${p}: ${r.name} read as two orders`);
      orders.set(r.name, o);
      readOrders.set(r.name, r.order);
    }
    for (const a of run.log.acked(profileId)) {
      const tag = a.etag === undefined ? undefined : parseEtag(a.etag)?.version;
      if (!tag) {
        out.push(`${p}: move ${a.key} acknowledged without an ETag`);
        continue;
      }
      const name = nameOf(tag.generation, tag.version);
      const order = readOrders.get(name);
      if (!order) continue;
      const at = order.indexOf(a.postId);
      const ok = a.after === null ? at === 0 : at === order.indexOf(a.after) + 1;
      if (!ok)
        out.push(
          `${p}: ${name} read with an order the move ${a.key} acknowledged under it contradicts`,
        );
    }
    const events = new Map<string, string>();
    for (const e of await eventsOf(profileId)) {
      const before = events.get(e.name);
      if (before !== undefined && before !== e.what) {
        out.push(`${p}: ${e.name} published as two changes (${before}; ${e.what})`);
      }
      events.set(e.name, e.what);
      const c = committed.get(e.name);
      if (c !== undefined && c !== e.what) {
        out.push(`${p}: ${e.name} published as ${e.what} but committed as ${c}`);
      }
    }
  }
  return out;
}

/** Per grid: versions the kill took back (acknowledged before it, issued again or lost). */
async function lostByKill(run: Run): Promise<{ lost: number; detail: string[]; stayed: bigint[] }> {
  let lost = 0;
  const detail: string[] = [];
  /** Grids that lost versions and still committed in generation 1 after the kill. */
  const stayed: bigint[] = [];
  for (const g of run.grids) {
    const acked = run.log.acked(g.profileId);
    const maxBefore = acked
      .filter((a) => a.at <= run.killedAt)
      .reduce((m, a) => (a.version! > m ? a.version! : m), 0n);
    const head = await inst.truth.reader.readHead(g.profileId);
    const after = commits
      .slice(run.firstCommit)
      .filter((c) => c.profileId === g.profileId && c.at > run.killedAt)
      .flatMap((c) => c.records);
    const firstAfter = after[0];
    const resumedAt = firstAfter ? firstAfter.version - 1n : head.version;
    const n = maxBefore > resumedAt ? Number(maxBefore - resumedAt) : 0;
    lost += n;
    if (n > 0 && firstAfter && firstAfter.generation === 1n) stayed.push(g.profileId);
    if (n > 0)
      detail.push(
        `${g.profileId}: acked up to v${maxBefore} before the kill, resumed at v${resumedAt}` +
          ` (${firstAfter ? `next commit ${nameOf(firstAfter.generation, firstAfter.version)}` : 'no commit'}),` +
          ` head now ${nameOf(head.generation, head.version)}`,
      );
  }
  return { lost, detail, stayed };
}

describe('a (generation, version) names one state across a Cassandra SIGKILL', () => {
  it('with the default commit log: no acknowledged move is lost, no name reused', async () => {
    await nodeWithCommitlog(say);
    say(`node commit log: ${runningCommitlogSync()}`);
    const run = await killUnderMoves({}, 'd');
    const { lost, detail } = await lostByKill(run);
    const violations = await nameViolations(run);
    say(
      `default: ${run.log.acked().length} moves acked, ${lost} versions lost by the kill; ` +
        `${run.reads.length} reads; ${violations.length} name violations; grids that lost ` +
        `versions: ${detail.join('; ')}`,
    );
    expect(lost).toBe(0);
    expect(run.log.unresolvedCount(), run.log.describeUnresolved(run.killedAt)).toBe(0);
    for (const g of run.grids) {
      const check = run.log.check(g, await readWholeGrid(inst, g.profileId));
      expect(check.violations).toEqual([]);
    }
    expect(violations).toEqual([]);
    // Nothing lost, nothing to move away from: every grid is still in generation 1.
    for (const g of run.grids) {
      expect((await inst.truth.reader.readHead(g.profileId)).generation).toBe(1n);
    }
  });

  // Opt-in (REGRID_FAULTS_PERIODIC=1): on this 2-core machine under CI load the periodic+lz4 node
  // failed three ways in three runs (the seed lost, the driver not back, a restart that exited
  // during start-up); the first two are handled above, the third is not understood yet.
  it.runIf(process.env.REGRID_FAULTS_PERIODIC === '1')(
    'with CASSANDRA_COMMITLOG_SYNC=periodic: versions the kill lost are never issued again',
    async () => {
      await nodeWithCommitlog(say, PERIODIC);
      say(`node commit log: ${runningCommitlogSync()}`);
      const violations: string[] = [];
      const stayedInGeneration1: bigint[] = [];
      for (let kill = 1; kill <= MAX_PERIODIC_KILLS; kill++) {
        const run = await killUnderMoves(PERIODIC, `p${kill}-`);
        const { lost, detail, stayed } = await lostByKill(run);
        stayedInGeneration1.push(...stayed);
        const found = await nameViolations(run);
        violations.push(...found);
        say(
          `periodic kill ${kill}: ${run.log.acked().length} moves acked, ${lost} versions lost by ` +
            `the kill; ${run.reads.length} reads; ${found.length} name violations: ` +
            `${found.slice(0, 12).join(' | ')}; grids that lost versions: ${detail.join('; ')}`,
        );
        if (lost > 0) break;
      }
      expect(violations).toEqual([]);
      expect(stayedInGeneration1).toEqual([]);
    },
  );
});
