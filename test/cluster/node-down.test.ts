/**
 * One node of three killed (SIGKILL, like a crash) while movers and readers run, then started
 * again on its data.
 *
 * Down: every partition still has two live replicas, so LOCAL_QUORUM commits, LOCAL_SERIAL Paxos
 * and quorum reads all form; moves and reads go on. Movers are careful clients (faults/support/
 * workload.ts): a move with an unknown outcome is retried with its Idempotency-Key. At the end no
 * move may be unresolved, and every grid must read back as the acknowledged moves imply (the load
 * tester's checker: no lost, duplicated or misplaced post).
 *
 * Back: the node restarts with its data and rejoins; quorum reads (which may now use it) still show
 * every acknowledged move, both the ones it saw before the crash and the ones it missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../tools/infra/process-utils.js';
import {
  freshProfile,
  openInstance,
  readVersion,
  readWholeGrid,
  seedGrid,
  type Instance,
} from '../faults/support/instance.js';
import { RunLog, runMover, type Grid } from '../faults/support/workload.js';
import {
  clusterConfig,
  ensureFullRing,
  restartRingNode,
  signalRingNode,
  waitGone,
  waitSeenAs,
} from './support/ring-stores.js';

const GRIDS = 4;
const POSTS = 12;
const VICTIM = 3;
const RUN_BEFORE_MS = 3_000;
const RUN_DOWN_MS = 8_000;

let inst: Instance;
const grids: Grid[] = [];
const log = new RunLog();
let killedAt = 0;

beforeAll(async () => {
  await ensureFullRing();
  inst = await openInstance(clusterConfig(), { deadlines: true });
  for (let i = 0; i < GRIDS; i++) {
    const profileId = freshProfile();
    grids.push({ profileId, initial: await seedGrid(inst, profileId, POSTS) });
  }
});
afterAll(async () => {
  await inst?.close();
});

interface Read {
  readonly startedAt: number;
  readonly ms: number;
  readonly ok: boolean;
  /** Why a failed read failed (its status and problem code), for the run's log line. */
  readonly why?: string;
}

/** Plain first-page reads, one grid after another, until `until()` (bounded by it). */
async function runReads(reads: Read[], until: () => number): Promise<void> {
  for (let n = 0; Date.now() < until(); n++) {
    const g = grids[n % grids.length]!;
    const startedAt = Date.now();
    const why = await readVersion(inst, g.profileId).then(
      () => undefined,
      (e: unknown) => String(e instanceof Error ? e.message : e).slice(0, 120),
    );
    reads.push({ startedAt, ms: Date.now() - startedAt, ok: why === undefined, why });
    await sleep(10);
  }
}

const byStatus = (list: readonly { status: number; code: string | undefined }[]) => {
  const out: Record<string, number> = {};
  for (const a of list)
    out[`${a.status}${a.code ? ` ${a.code}` : ''}`] =
      (out[`${a.status}${a.code ? ` ${a.code}` : ''}`] ?? 0) + 1;
  return out;
};

describe('one node of three killed under load, then back', () => {
  it('moves and reads go on with two replicas; nothing lost, duplicated or misplaced', async () => {
    let stopAt = Infinity;
    const reads: Read[] = [];
    const workers = [
      ...grids.map((grid, n) =>
        runMover(inst, log, {
          name: `ring-down-${n}`,
          seed: 300 + n,
          grids: () => [grid],
          until: () => stopAt,
          resolveBy: () => stopAt + 20_000,
        }),
      ),
      runReads(reads, () => stopAt),
      runReads(reads, () => stopAt),
    ];
    await sleep(RUN_BEFORE_MS);
    const pid = signalRingNode(VICTIM, 'SIGKILL');
    killedAt = Date.now();
    await waitGone(pid);
    await sleep(RUN_DOWN_MS);
    stopAt = Date.now();
    await Promise.all(workers);

    const down = (t: number) => t >= killedAt && t < stopAt;
    const ackedDown = log.acked().filter((m) => down(m.at)).length;
    const attemptsDown = log.attempts.filter((a) => down(a.startedAt));
    const readsDown = reads.filter((r) => down(r.startedAt));
    const longest = Math.max(
      ...log.attempts.map((a) => a.endedAt - a.startedAt),
      ...reads.map((r) => r.ms),
    );
    console.log(
      `[ring node down] ${log.acked().length} moves acked (${ackedDown} with node ${VICTIM} down); ` +
        `attempts while down by status ${JSON.stringify(byStatus(attemptsDown))}; reads while down ` +
        `${readsDown.filter((r) => r.ok).length}/${readsDown.length} ok ` +
        `${JSON.stringify(readsDown.filter((r) => !r.ok).map((r) => `+${r.startedAt - killedAt} ms ${r.ms} ms ${r.why}`))}; longest request ${longest} ms; ` +
        `${log.unresolvedCount()} unresolved; causes logged ${JSON.stringify([...inst.internalErrors])}`,
    );

    expect(ackedDown, 'moves went on with one node down').toBeGreaterThan(GRIDS * 5);
    expect(readsDown.filter((r) => r.ok).length, 'reads went on').toBeGreaterThan(20);
    // After the first second (in-flight requests on the dead node's connections), reads answer.
    const settled = readsDown.filter((r) => r.startedAt > killedAt + 1_000);
    expect(settled.filter((r) => !r.ok).length).toBeLessThanOrEqual(settled.length / 10);
    expect(log.unresolvedCount(), log.describeUnresolved(killedAt)).toBe(0);
    expect(log.attempts.filter((a) => a.status === 500)).toEqual([]);
    for (const g of grids) {
      const check = log.check(g, await readWholeGrid(inst, g.profileId));
      expect(check.violations).toEqual([]);
      expect(check.orderChecked).toBe(true);
    }
  });

  it('the killed node restarts on its data and rejoins; quorum reads show every acknowledged move', async () => {
    expect(killedAt, 'the kill test ran first').toBeGreaterThan(0);
    const t0 = Date.now();
    await restartRingNode(VICTIM);
    const cqlAt = Date.now();
    await waitSeenAs(1, [VICTIM], 'UN');
    const upAt = Date.now();
    console.log(
      `[ring node back] node ${VICTIM} answered CQL ${((cqlAt - t0) / 1000).toFixed(1)} s after start-node, ` +
        `UN for node 1 after ${((upAt - t0) / 1000).toFixed(1)} s (${((upAt - killedAt) / 1000).toFixed(1)} s after the kill)`,
    );
    // A fresh client, so the restarted node is in its pool from the start and coordinates too.
    const fresh = await openInstance(clusterConfig(), { deadlines: true });
    try {
      for (const g of grids) {
        const check = log.check(g, await readWholeGrid(fresh, g.profileId));
        expect(check.violations).toEqual([]);
        const head = await fresh.truth.reader.readHead(g.profileId);
        expect(head.version).toBe(log.lastAckedBefore(g.profileId, Infinity));
      }
    } finally {
      await fresh.close();
    }
  });
});
