/**
 * Issue #34's end-to-end run: one regrid service per region, each a real server process inside
 * its region's network namespace with its own Redis (support/region-services.ts), movers in BOTH
 * regions writing EVERY profile concurrently (tools/loadtest/region-load.ts), the DC partition
 * (the WAN link down) and the heal during the run, then every acknowledged move of both regions
 * judged by the load tester's checker on a read at ALL, the audit, and each region's own read
 * (support/region-check.ts). Three configurations, each on fresh profiles:
 *   a. LOCAL_SERIAL, homes off: both regions commit the same versions; the checker must find it;
 *   b. homes on (forward): 0 violations, every acknowledged move present, the audit clean;
 *   c. SERIAL everywhere, homes off: 0 violations (and its price in latency).
 * Figures: printed, and written to /tmp/regrid-regions/two-region-load.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../tools/infra/process-utils.js';
import { closeHttpPools } from '../../tools/loadtest/http-call.js';
import { applyNetFault, waitForGossip } from '../../tools/loadtest/net-nemesis.js';
import { RegionLoad, type RegionGrid } from '../../tools/loadtest/region-load.js';
import { percentile } from '../../tools/loadtest/stats.js';
import { checkRun, type RunCheck } from './support/region-check.js';
import { seedGrids } from './support/region-grids.js';
import {
  JWT_SECRET,
  peersSetting,
  serviceBase,
  startRegionRedis,
  startRegionService,
  type RegionProcess,
} from './support/region-services.js';
import { dcNodes, PLAN } from './support/regions-ring.js';

const KEYSPACE = process.env.REGRID_TEST_KEYSPACE ?? 'regrid_regions_load';
const PROFILES = 8;
const POSTS = 12;
const PER_REGION = 4; // movers per region; each goes round every profile
const BEFORE_S = 5;
const PARTITION_S = 25;
const AFTER_S = 8;
const [dc1n1, dc2n1] = dcNodes() as [ReturnType<typeof dcNodes>[0], ReturnType<typeof dcNodes>[0]];
const bases = [serviceBase(1), serviceBase(2)] as const;
const log = (line: string) => console.log(`[two-region] ${line}`);

interface Figures {
  readonly config: string;
  readonly seconds: number;
  readonly regions: Record<string, { attempted: number; acked: number; rejected: number; uncertain: number; codes: Record<string, number>; phases: unknown }>; // prettier-ignore
  readonly acked: number;
  readonly failed: number;
  readonly movesPerS: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly home: { n: number; p50: number | null; p99: number | null };
  readonly away: { n: number; p50: number | null; p99: number | null };
  /** Region → how many profiles it acknowledged moves of (every one: PROFILES). */
  readonly profilesAcked: Record<string, number>;
  readonly check: RunCheck;
}

const figures: Figures[] = [];
let redis: RegionProcess[] = [];

const pct = (xs: number[]) => ({ n: xs.length, p50: round(percentile(xs, 50)), p99: round(percentile(xs, 99)) }); // prettier-ignore
const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

async function run(config: string, env: Record<string, string>, seed: number): Promise<Figures> {
  const services: RegionProcess[] = [];
  try {
    // dc1 first: on the first run it migrates the keyspace (SERIAL LWTs: the WAN is up).
    services.push(await startRegionService(1, KEYSPACE, env));
    services.push(await startRegionService(2, KEYSPACE, env));
    const grids: RegionGrid[] = await seedGrids(bases, PROFILES, POSTS);
    const load = new RegionLoad(
      [
        { region: 'dc1', base: bases[0] },
        { region: 'dc2', base: bases[1] },
      ],
      grids,
      JWT_SECRET,
      { perRegion: PER_REGION, seed, failurePauseMs: 100 },
    );
    load.start();
    await sleep(BEFORE_S * 1000);
    applyNetFault(PLAN, { kind: 'partition' });
    load.phase = 'partition';
    const t0 = performance.now();
    await sleep(PARTITION_S * 1000);
    applyNetFault(PLAN, { kind: 'heal' });
    load.phase = 'after';
    log(`${config}: partition ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await waitForGossip(dc1n1, [dc2n1], 'UN');
    await waitForGossip(dc2n1, [dc1n1], 'UN');
    await sleep(AFTER_S * 1000);
    await load.stop();
    const check = await checkRun(KEYSPACE, grids, bases);
    const all = load.tallies.flatMap((t) => [...t.homeMs, ...t.awayMs]);
    const acked = load.tallies.reduce((n, t) => n + t.acked, 0);
    const f: Figures = {
      config,
      seconds: round(load.seconds)!,
      regions: Object.fromEntries(load.tallies.map((t) => [t.region, { attempted: t.attempted, acked: t.acked, rejected: t.rejected, uncertain: t.uncertain, codes: t.codes, phases: t.phases }])), // prettier-ignore
      acked,
      failed: load.tallies.reduce((n, t) => n + t.rejected + t.uncertain, 0),
      movesPerS: round(acked / load.seconds)!,
      ...pct(all),
      home: pct(load.tallies.flatMap((t) => t.homeMs)),
      away: pct(load.tallies.flatMap((t) => t.awayMs)),
      profilesAcked: Object.fromEntries(load.tallies.map((t) => [t.region, t.profilesAcked.size])),
      check,
    };
    figures.push(f);
    log(`${config}: ${JSON.stringify({ ...f, check: { ...check, violations: check.violations.slice(0, 5) } })}`); // prettier-ignore
    return f;
  } finally {
    applyNetFault(PLAN, { kind: 'heal' });
    for (const s of services.reverse()) await s.stop();
    await closeHttpPools(); // the next configuration's services are new servers on the same URLs
  }
}

beforeAll(async () => {
  redis = [await startRegionRedis(1), await startRegionRedis(2)];
});

afterAll(async () => {
  for (const r of redis) await r.stop();
  mkdirSync('/tmp/regrid-regions', { recursive: true });
  writeFileSync('/tmp/regrid-regions/two-region-load.json', JSON.stringify(figures, null, 2));
  for (const f of figures) {
    log(`${f.config.padEnd(22)} acked ${f.acked} failed ${f.failed} moves/s ${f.movesPerS} p50 ${f.p50} p99 ${f.p99} | home ${JSON.stringify(f.home)} away ${JSON.stringify(f.away)} | violations ${JSON.stringify(f.check.byKind)} doubled ${JSON.stringify(f.check.doubled)} unchecked ${f.check.ordersUnchecked} audit ${JSON.stringify(f.check.audit)} regionsDiffer ${f.check.regionsDiffer}`); // prettier-ignore
  }
});

/** The workload really wrote every profile from both regions. */
const everyProfileFromBoth = (f: Figures) =>
  expect(f.profilesAcked).toEqual({ dc1: PROFILES, dc2: PROFILES });

const violationsOf = (f: Figures) => f.check.violations.length + Object.values(f.check.audit).reduce((a, b) => a + b, 0); // prettier-ignore

describe('both regions write every profile through a DC partition and a heal', () => {
  it(
    'a. LOCAL_SERIAL without homes: the checker finds the lost writes',
    { timeout: 600_000 },
    async () => {
      // prettier-ignore
      const f = await run('a localSerial, homes off', { REGRID_HOME_REGIONS: 'off' }, 1);
      everyProfileFromBoth(f);
      expect(f.check.violations.length + f.check.doubled.versions, 'violations found').toBeGreaterThan(0); // prettier-ignore
    },
  );

  it(
    'b. homes on (forward): 0 violations, every acknowledged move present, audit clean',
    { timeout: 600_000 },
    async () => {
      const f = await run('b homes forward', { REGRID_HOME_REGIONS: 'forward', REGRID_REGION_PEERS: peersSetting() }, 2); // prettier-ignore
      everyProfileFromBoth(f);
      expect(f.check.violations).toEqual([]);
      expect(f.check.audit).toEqual({});
      expect(f.check.ordersUnchecked).toBe(0);
      expect(f.check.doubled.versions).toBe(0);
      expect(violationsOf(f)).toBe(0);
    },
  );

  it('c. SERIAL everywhere, homes off: 0 violations', { timeout: 600_000 }, async () => {
    const f = await run('c serial, homes off', { REGRID_HOME_REGIONS: 'off', CASSANDRA_SERIAL_CONSISTENCY: 'serial' }, 3); // prettier-ignore
    everyProfileFromBoth(f);
    expect(f.check.violations).toEqual([]);
    expect(f.check.audit).toEqual({});
    expect(f.check.ordersUnchecked).toBe(0);
    expect(f.check.doubled.versions).toBe(0);
  });
});
