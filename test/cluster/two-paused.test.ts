/**
 * Two replicas of three stop answering (SIGSTOP: the JVMs freeze, their sockets stay open).
 *
 * Outcome unknown: right after the pause the coordinator still believes both are up, so a
 * Paxos round it starts waits for promises or acceptances that never come and ends in a
 * WriteTimeout of type CAS. Such a round may or may not have committed. The service must never
 * answer "failed" (a 4xx, `contention`, `unavailable`) for a write that did commit, and never apply
 * one twice: every move's retry with its Idempotency-Key is either applied once or answered from
 * the grid's request ring with the version of the attempt that committed.
 *
 * Two down: once the failure detector has convicted both, the coordinator knows a quorum cannot
 * form and refuses at once (Unavailable): writes and quorum reads answer 503 with Retry-After
 * quickly, never waiting out the request deadline, and nothing is half-applied. Reads say
 * `unavailable`; keyed writes say `write_outcome_unknown`, since their key's state is unreadable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { casOutcomeUnknown } from '../../src/obs/metrics.js';
import { cqlErrors } from '../../src/obs/metrics-platform.js';
import { sleep } from '../../tools/infra/process-utils.js';
import {
  call,
  freshProfile,
  openInstance,
  readWholeGrid,
  seedGrid,
  type Instance,
} from '../faults/support/instance.js';
import type { Cql } from '../../src/store/cassandra.js';
import { RunLog, runMover, type Grid } from '../faults/support/workload.js';
import {
  clusterConfig,
  ensureFullRing,
  signalRingNode,
  waitSeenAs,
} from './support/ring-stores.js';

const PAUSED = [2, 3] as const;
const GRIDS = 6;
const POSTS = 10;
/** Deadlines above Cassandra's own timeouts (write 2 s, read 5 s), so its answers surface. */
const WRITE_DEADLINE_MS = 8_000;
const READ_DEADLINE_MS = 7_000;

let inst: Instance;
/** Set to a callback: the next grid compare-and-set runs it (once) just before it is sent. */
let beforeNextGridCas: (() => void) | undefined;
const pauseBeforeGridCas = (cql: Cql): Cql => ({
  execute: (q, p, o) => cql.execute(q, p, o),
  batch: (queries, options) => {
    const fire = beforeNextGridCas;
    if (fire && queries.some((q) => /\bIF version\b/.test(q.query))) {
      beforeNextGridCas = undefined;
      fire();
    }
    return cql.batch(queries, options);
  },
});
beforeAll(async () => {
  await ensureFullRing();
  inst = await openInstance(
    clusterConfig({
      REQUEST_DEADLINE_WRITE_MS: String(WRITE_DEADLINE_MS),
      REQUEST_DEADLINE_READ_MS: String(READ_DEADLINE_MS),
      CASSANDRA_REQUEST_TIMEOUT_MS: '6000',
    }),
    // Node 1 coordinates everything: it keeps sending to the paused replicas and times out
    // itself, as a coordinator that has not yet convicted them does. The pause starts right
    // before a grid write's conditional batch, so at least one grid compare-and-set times out.
    { deadlines: true, coordinator: '127.0.0.1:19342', wrapCql: pauseBeforeGridCas },
  );
});
afterAll(async () => {
  for (const i of PAUSED) signalRingNode(i, 'SIGCONT');
  await inst?.close();
});

const sum = (m: { values: Array<{ value: number }> }) => m.values.reduce((n, v) => n + v.value, 0);
/** Paxos rounds that timed out: the grid writer's, and any lightweight transaction's. */
const casTimeouts = async () => ({
  grid: sum(await casOutcomeUnknown.get()),
  any: sum({
    values: (await cqlErrors.get()).values.filter((v) => v.labels.error === 'cas_timeout'),
  }),
});

const statusCounts = (list: readonly { status: number; code?: string | undefined }[]) => {
  const out: Record<string, number> = {};
  for (const a of list) {
    const k = `${a.status}${a.code ? ` ${a.code}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
};

async function seedGrids(n: number): Promise<Grid[]> {
  const grids: Grid[] = [];
  for (let i = 0; i < n; i++) {
    const profileId = freshProfile();
    grids.push({ profileId, initial: await seedGrid(inst, profileId, POSTS) });
  }
  return grids;
}

describe('two replicas of three paused', () => {
  it('a compare-and-set that times out is never reported failed when it committed, nor applied twice', async () => {
    const grids = await seedGrids(GRIDS);
    const seeded = new Map<bigint, bigint>();
    for (const g of grids)
      seeded.set(g.profileId, (await inst.truth.reader.readHead(g.profileId)).version);
    const timeoutsBefore = await casTimeouts();
    const log = new RunLog();
    let stopAt = Infinity;
    const movers = grids.map((grid, n) =>
      runMover(inst, log, {
        name: `ring-unknown-${n}`,
        seed: 500 + n,
        grids: () => [grid],
        until: () => stopAt,
        resolveBy: () => stopAt + 40_000,
      }),
    );
    await sleep(2_000);
    let pausedAt = 0;
    await new Promise<void>((paused) => {
      beforeNextGridCas = () => {
        for (const i of PAUSED) signalRingNode(i, 'SIGSTOP');
        pausedAt = Date.now();
        paused();
      };
    });
    // Longer than Cassandra's read timeout (5 s; movers waiting in a quorum read then retry into
    // a Paxos round) and shorter than the failure detector's conviction (~20 s here): node 1
    // keeps sending to them.
    await sleep(8_000);
    for (const i of PAUSED) signalRingNode(i, 'SIGCONT');
    const resumedAt = Date.now();
    await sleep(4_000);
    stopAt = Date.now();
    await Promise.all(movers);
    const after = await casTimeouts();
    const timeouts = after.any - timeoutsBefore.any;
    const gridTimeouts = after.grid - timeoutsBefore.grid;

    // A key whose retry was replayed committed on an earlier attempt: no earlier answer for it may
    // have said "not applied".
    const committedEarlier = new Set(log.attempts.filter((a) => a.replayed).map((a) => a.key));
    const falseFailures = log.attempts.filter(
      (a) =>
        committedEarlier.has(a.key) &&
        a.status !== 200 &&
        a.code !== 'write_outcome_unknown' &&
        a.code !== 'idempotency_in_flight',
    );
    const failed = log.attempts.filter((a) => a.status !== 200);
    const longest = Math.max(...log.attempts.map((a) => a.endedAt - a.startedAt));
    const retryResolved = log.acked().length;
    console.log(
      `[ring outcome unknown] ${timeouts} Paxos timeouts (${gridTimeouts} of them grid writes); ${log.attempts.length} attempts, failed ` +
        `by status ${JSON.stringify(statusCounts(failed))}; ${committedEarlier.size} moves answered 503 ` +
        `whose earlier attempt had committed (the retry was replayed); ${retryResolved} acked, ` +
        `${log.unresolvedCount()} unresolved; longest attempt ${longest} ms; paused ` +
        `${resumedAt - pausedAt} ms; causes logged ${JSON.stringify([...inst.internalErrors])}`,
    );

    expect(
      timeouts,
      'the pause produced Paxos timeouts (else this test shows nothing)',
    ).toBeGreaterThan(0);
    expect(falseFailures).toEqual([]);
    expect(log.unresolvedCount(), log.describeUnresolved(pausedAt)).toBe(0);
    expect(gridTimeouts, 'the grid write caught by the pause timed out').toBeGreaterThan(0);
    expect(failed.filter((a) => a.status < 500 || a.status === 500)).toEqual([]);
    for (const g of grids) {
      const check = log.check(g, await readWholeGrid(inst, g.profileId));
      expect(check.violations).toEqual([]);
      // Applied at most once: every version after the seed belongs to exactly one acked move.
      const head = (await inst.truth.reader.readHead(g.profileId)).version;
      const versions = new Set(log.acked(g.profileId).map((m) => m.version!));
      versions.delete(seeded.get(g.profileId)!);
      expect(head - seeded.get(g.profileId)!).toBe(BigInt(versions.size));
    }
    // The idempotency path once more, after the fault: each grid's last acked key answers its
    // recorded version from the request ring, and the grid does not change.
    for (const g of grids) {
      const last = log.attempts
        .filter((a) => a.profileId === g.profileId && a.status === 200)
        .at(-1);
      const ack = last && log.acked(g.profileId).find((m) => m.at === last.endedAt);
      if (!last || !ack) continue;
      const before = (await inst.truth.reader.readHead(g.profileId)).version;
      const again = await call(inst, 'POST', '/v1/me/grid/moves', g.profileId, {
        body: { post_id: String(ack.postId), after: ack.after === null ? null : String(ack.after) },
        headers: { 'idempotency-key': last.key },
      });
      expect(again.status).toBe(200);
      expect(again.replayed).toBe(true);
      expect(BigInt(again.json.grid_version)).toBe(ack.version);
      expect((await inst.truth.reader.readHead(g.profileId)).version).toBe(before);
    }
  });

  it('once both are convicted down, writes and quorum reads answer 503 + Retry-After, never past the deadline', async () => {
    await ensureFullRing();
    // Default deadlines (2 s writes, 1 s reads) and the driver's own choice of coordinator: it
    // still holds open connections to the frozen JVMs (a crash would have closed them), so a
    // request it sends there waits for the deadline. `inst` sends everything to node 1.
    const plain = await openInstance(clusterConfig(), { deadlines: true });
    const [grid] = await seedGrids(1);
    const p = grid!.profileId;
    const before = await readWholeGrid(inst, p);
    const headBefore = (await inst.truth.reader.readHead(p)).version;
    const requests = [
      ['POST', '/v1/me/grid/moves', { post_id: String(before[3]), after: null }],
      ['GET', `/v1/profiles/${p}/grid?limit=24`, undefined],
      ['PUT', '/v1/me/grid/pins', { post_ids: [String(before[1])] }],
    ] as const;
    type Answer = { status: number; code?: string; ms: number; retryAfter: boolean; read: boolean };
    const ask = async (via: Instance, rounds: number, out: Answer[]) => {
      for (let i = 0; i < rounds; i++) {
        for (const [method, path, body] of requests) {
          const t0 = Date.now();
          const r = await call(via, method, path, p, {
            ...(body ? { body } : {}),
            headers: { 'idempotency-key': `ring-two-down-${method}-${i}-${out.length}` },
          });
          out.push({
            status: r.status,
            ...(r.json?.code ? { code: r.json.code } : {}),
            ms: Date.now() - t0,
            retryAfter: r.retryAfter !== undefined,
            read: method === 'GET',
          });
        }
      }
    };
    for (const i of PAUSED) signalRingNode(i, 'SIGSTOP');
    const pausedAt = Date.now();
    let convictedMs = 0;
    const viaNode1: Answer[] = [];
    const viaDriver: Answer[] = [];
    try {
      convictedMs = await waitSeenAs(1, [...PAUSED], 'DN');
      await ask(inst, 5, viaNode1);
      await ask(plain, 3, viaDriver);
    } finally {
      for (const i of PAUSED) signalRingNode(i, 'SIGCONT');
      await plain.close();
    }
    const resumedAt = Date.now();
    await waitSeenAs(1, [...PAUSED], 'UN');
    const upMs = Date.now() - resumedAt;
    const longest = (list: Answer[]) => Math.max(...list.map((a) => a.ms));
    console.log(
      `[ring two down] convicted DN after ${convictedMs} ms; via node 1: ` +
        `${JSON.stringify(statusCounts(viaNode1))}, longest ${longest(viaNode1)} ms; via the driver's ` +
        `choice (deadlines 2000/1000 ms): ${JSON.stringify(statusCounts(viaDriver))}, longest ` +
        `${longest(viaDriver)} ms; paused ${resumedAt - pausedAt} ms; both UN again ${upMs} ms after SIGCONT`,
    );
    for (const a of [...viaNode1, ...viaDriver]) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toBe(true);
    }
    // The coordinator refuses at once (Unavailable): far below Cassandra's own 2 s write timeout.
    // A read says so; a keyed write cannot even read its key's state, so it cannot promise that
    // no earlier attempt with the key committed: outcome unknown (retry with the same key).
    for (const a of viaNode1) expect(a.code).toBe(a.read ? 'unavailable' : 'write_outcome_unknown');
    expect(longest(viaNode1)).toBeLessThan(1_500);
    // Whichever coordinator: never past the request deadline (plus scheduling slack).
    for (const a of viaDriver) expect(a.ms).toBeLessThan((a.read ? 1_000 : 2_000) + 500);
    // Nothing half-applied: the grid reads back exactly as before, at the same version.
    expect(await readWholeGrid(inst, p)).toEqual(before);
    expect((await inst.truth.reader.readHead(p)).version).toBe(headBefore);
  });
});
