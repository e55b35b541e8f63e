/**
 * Scenario 2: the private Cassandra node is killed (SIGKILL, no shutdown of any kind) while
 * movers run (one per grid), and started again on its data by this project's provisioning
 * (ensureCassandra). The movers keep going throughout: while the node is down their moves fail,
 * and each one is retried with its Idempotency-Key until it is acknowledged, as a careful client
 * would.
 *
 * What must hold: every move acknowledged before the kill is still there, the service recovers
 * without a restart of its own, no move is left with an unknown outcome, and every grid reads
 * back exactly as the model replays the acknowledged moves in version order. The first holds
 * because the private node syncs its commit log before acknowledging (CASSANDRA_COMMITLOG_SYNC
 * `group`, the development default). With `periodic` a killed single node (RF 1) loses the
 * acknowledged writes after its last sync marker (replay stops there): runs here lost the last
 * 2–3 versions of a grid that way; version-names.test.ts covers what the service then does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../tools/infra/process-utils.js';
import {
  faultsConfig,
  nodeWithCommitlog,
  restartNode,
  signalNode,
  waitGone,
} from './support/private-stores.js';
import {
  freshProfile,
  openInstance,
  readWholeGrid,
  seedGrid,
  type Instance,
} from './support/instance.js';
import { RunLog, runMover, type Grid } from './support/workload.js';

const POSTS = 12;
// One mover per grid: a keyed retry must come before 16 other commits on its grid, or the
// request ring cannot tell any more whether the first attempt committed (409, outcome unknown;
// docs/idempotency.md). Other movers on the same grid, back at full speed after the fault, can
// get there first; contention on one grid is the Redis stall scenario's business.
const GRIDS = 4;
const RUN_BEFORE_MS = 3_000;
const RUN_AFTER_MS = 3_000;
/** From the node answering CQL again to the first acknowledged move. */
const RECOVERY_BUDGET_MS = 60_000;

let inst: Instance;
beforeAll(async () => {
  // The default (durable) commit log, whatever another file left (version-names.test.ts runs one
  // periodic): this file's kill must lose nothing acknowledged.
  await nodeWithCommitlog((l) => console.log(`[cassandra kill] ${l}`));
  inst = await openInstance(faultsConfig({ CASSANDRA_REQUEST_TIMEOUT_MS: '3000' }));
});
afterAll(async () => {
  await inst?.close();
});

describe('Cassandra killed mid-run and restarted on its data', () => {
  it('keeps every acknowledged move, in the order the model implies', async () => {
    const grids: Grid[] = [];
    for (let i = 0; i < GRIDS; i++) {
      const profileId = freshProfile();
      grids.push({ profileId, initial: await seedGrid(inst, profileId, POSTS) });
    }
    const log = new RunLog();
    let stopAt = Infinity;
    const movers = grids.map((grid, n) =>
      runMover(inst, log, {
        name: `k${n}`,
        seed: 100 + n,
        grids: () => [grid],
        until: () => stopAt,
        resolveBy: () => stopAt + 20_000,
      }),
    );

    await sleep(RUN_BEFORE_MS);
    const pid = signalNode('SIGKILL');
    const killedAt = Date.now();
    const ackedBeforeKill = log.acked().length;
    let recoveredAt: number | undefined;
    let upAt = 0;
    try {
      await waitGone(pid);
      await restartNode((l) => console.log(`[cassandra kill] ${l}`));
      upAt = Date.now();
      while (Date.now() < upAt + RECOVERY_BUDGET_MS && recoveredAt === undefined) {
        recoveredAt = log.acked().find((m) => m.at > upAt)?.at;
        await sleep(20);
      }
    } finally {
      stopAt = (recoveredAt ?? Date.now()) + RUN_AFTER_MS;
    }
    await Promise.all(movers);

    const failed = log.attempts.filter((a) => a.status !== 200);
    const statuses = [...new Set(failed.map((a) => `${a.status} ${a.code}`))].sort();
    const acked = log.acked();
    console.log(
      `[cassandra kill] ${acked.length} moves acked (${ackedBeforeKill} before the kill, ` +
        `${acked.filter((m) => m.at > upAt).length} after the restart); node back ` +
        `${upAt - killedAt} ms after SIGKILL, first move acknowledged ` +
        `${recoveredAt === undefined ? 'never' : `${recoveredAt - upAt} ms`} after that; ` +
        `${failed.length} failed attempts: ${statuses.join(', ')}; ` +
        `${log.unresolvedCount()} moves unresolved; 500s: ` +
        JSON.stringify([...inst.internalErrors]),
    );

    expect(ackedBeforeKill).toBeGreaterThan(10);
    expect(recoveredAt, 'the service acknowledged moves again after the restart').toBeDefined();
    expect(log.unresolvedCount(), log.describeUnresolved(killedAt)).toBe(0);
    for (const g of grids) {
      const check = log.check(g, await readWholeGrid(inst, g.profileId));
      expect(check.violations).toEqual([]);
      expect(check.orderChecked).toBe(true);
      const maxAcked = log.lastAckedBefore(g.profileId, Infinity);
      expect((await inst.truth.reader.readHead(g.profileId)).version).toBeGreaterThanOrEqual(
        maxAcked,
      );
    }
  });
});
