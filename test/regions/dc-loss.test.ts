/**
 * Losing a region (docs/regions.md "Losing a region"; issue #34's second Done-when), with homes
 * on (forward) and one regrid service per region in its namespace (support/region-services.ts):
 * dc2's Cassandra node is killed (SIGKILL by its PID). Region dc1 keeps answering reads of every
 * profile and moves of the profiles homed in dc1, with no failure; `regrid region failover
 * --from dc2` (the CLI, run in dc1's namespace) re-homes dc2's grids, after which their moves
 * succeed in dc1; the node comes back, and every grid is read at ALL, judged by the checker
 * against every acknowledged move, and audited: nothing placed twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/http/auth.js';
import { startDcNode } from '../../tools/infra/dc-ring.js';
import { sleep } from '../../tools/infra/process-utils.js';
import { closeHttpPools } from '../../tools/loadtest/http-call.js';
import { waitForGossip } from '../../tools/loadtest/net-nemesis.js';
import { RegionLoad, sendMove, type RegionGrid } from '../../tools/loadtest/region-load.js';
import { checkRun, readAllHttp, readLocal } from './support/region-check.js';
import { seedGrids } from './support/region-grids.js';
import {
  JWT_SECRET,
  peersSetting,
  regridIn,
  serviceBase,
  startRegionRedis,
  startRegionService,
  type RegionProcess,
} from './support/region-services.js';
import { dcNodePid, dcNodes, regionsConfig } from './support/regions-ring.js';

const KEYSPACE = process.env.REGRID_TEST_KEYSPACE ?? 'regrid_regions_load';
const [dc1n1, dc2n1] = dcNodes() as [ReturnType<typeof dcNodes>[0], ReturnType<typeof dcNodes>[0]];
const bases = [serviceBase(1), serviceBase(2)] as const;
const log = (line: string) => console.log(`[dc-loss] ${line}`);
const running: RegionProcess[] = [];

/** One move of a random post of `g` through `base`, recorded in the grid's model. */
async function moveOnce(base: string, g: RegionGrid, seq: number) {
  const posts = g.model.posts;
  const postId = posts[seq % posts.length]!;
  const after = seq % 3 === 0 ? null : posts[(seq + 5) % posts.length]!;
  const out = await sendMove(base, await issueToken(JWT_SECRET, g.model.profileId, 3600), postId, after); // prettier-ignore
  if (out.kind === 'acked') g.model.acks.push({ postId, after, version: out.version, seq: 1_000_000 + seq }); // prettier-ignore
  if (out.kind === 'uncertain') {
    g.model.uncertain++;
    g.model.unknown.push({ postId, after });
  }
  return out;
}

beforeAll(async () => {
  running.push(await startRegionRedis(1), await startRegionRedis(2));
  const env = { REGRID_HOME_REGIONS: 'forward', REGRID_REGION_PEERS: peersSetting() };
  running.push(await startRegionService(1, KEYSPACE, env));
  running.push(await startRegionService(2, KEYSPACE, env));
}, 600_000);

afterAll(async () => {
  for (const p of running.reverse()) await p.stop();
  await closeHttpPools();
  // Never leave the suite's ring short of a node (the next file needs both).
  if (dcNodePid(dc2n1) === undefined) await startDcNode(regionsConfig(), dc2n1, log);
}, 600_000);

describe('one region lost, re-homed, and back', () => {
  it(
    'dc1 serves reads of every grid and moves of its own; after failover, dc2s grids too; nothing placed twice',
    { timeout: 900_000 },
    async () => {
      // prettier-ignore
      const grids = await seedGrids(bases, 8, 10);
      const own = grids.filter((g) => g.home === 'dc1');
      const lost = grids.filter((g) => g.home === 'dc2');
      // Both regions write every grid while all is well.
      const load = new RegionLoad([{ region: 'dc1', base: bases[0] }, { region: 'dc2', base: bases[1] }], grids, JWT_SECRET, { perRegion: 2, seed: 34, failurePauseMs: 100 }); // prettier-ignore
      load.start();
      await sleep(5000);
      await load.stop();
      const healthy = load.tallies.map((t) => `${t.region} ${t.acked}/${t.attempted}`).join(', ');

      const pid = dcNodePid(dc2n1)!;
      process.kill(pid, 'SIGKILL');
      log(`dc2n1 (pid ${pid}) killed`);
      const t0 = Date.now();
      let seq = 0;
      const during = { reads: 0, readFailures: 0, moves: 0, moveFailures: [] as string[] };
      while (Date.now() - t0 < 20_000) {
        for (const g of grids) {
          during.reads++;
          await readAllHttp(bases[0], g.model.profileId, 1).catch(() => during.readFailures++);
        }
        for (const g of own) {
          during.moves++;
          const out = await moveOnce(bases[0], g, seq++);
          if (out.kind !== 'acked') during.moveFailures.push(out.code);
        }
      }
      const before = [];
      for (const g of lost) {
        const out = await moveOnce(bases[0], g, seq++);
        before.push(out.kind === 'acked' ? 'acked' : out.code);
      }
      log(`while dc2 is down (20 s, before failover): ${JSON.stringify(during)}; dc2's grids through dc1: ${before.join(',')}`); // prettier-ignore
      expect(during.readFailures).toBe(0);
      expect(during.moveFailures).toEqual([]);

      const tf = Date.now();
      const fo = await regridIn(1, KEYSPACE, ['region', 'failover', '--from', 'dc2', '--json']);
      log(`failover: exit ${fo.code} in ${((Date.now() - tf) / 1000).toFixed(1)} s: ${fo.stdout.trim().slice(0, 400)} ${fo.stderr.trim().slice(0, 400)}`); // prettier-ignore
      expect(fo.code).toBe(0);
      // Each re-home is a version of its own that changes no order: the model records it as a
      // no-op at that version (its second post right after its first), so the checker's "every
      // version explained" rule holds it to account like any other write. Read from dc1's
      // replicas: a page dc1's server cached before the re-home still says the older version.
      const rehomed = await readLocal(
        KEYSPACE,
        1,
        lost.map((g) => g.model.profileId),
      );
      for (const g of lost) {
        const { order, version } = rehomed.get(g.model.profileId)!;
        g.model.acks.push({ postId: order[1]!, after: order[0]!, version, seq: 2_000_000 + seq++ });
      }
      const after: string[] = [];
      for (const g of lost) {
        for (let k = 0; k < 3; k++) {
          const out = await moveOnce(bases[0], g, seq++);
          after.push(out.kind === 'acked' ? 'acked' : out.code);
        }
      }
      log(`dc2's grids through dc1 after failover: ${after.join(',')}`);
      expect(after.every((o) => o === 'acked')).toBe(true);

      const tr = Date.now();
      await startDcNode(regionsConfig(), dc2n1, log);
      await waitForGossip(dc1n1, [dc2n1], 'UN');
      await waitForGossip(dc2n1, [dc1n1], 'UN');
      log(`dc2n1 back (UN both ways) after ${((Date.now() - tr) / 1000).toFixed(1)} s`);
      const check = await checkRun(KEYSPACE, grids, bases);
      log(`healthy run ${healthy}; after the return: violations ${JSON.stringify(check.byKind)}, unchecked ${check.ordersUnchecked}, audit ${JSON.stringify(check.audit)}, doubled ${JSON.stringify(check.doubled)}, regions differ ${check.regionsDiffer}; ${JSON.stringify(check.violations.slice(0, 3))}`); // prettier-ignore
      expect(check.byKind.duplicate).toBe(0);
      expect(check.doubled.versions).toBe(0);
      expect(check.audit['duplicate_key'] ?? 0).toBe(0);
    },
  );
});
