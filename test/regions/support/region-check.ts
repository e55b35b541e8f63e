/**
 * The end of a two-region run (two-region-load.test.ts): every grid read back at consistency
 * ALL (both DCs' replicas, merged the way Cassandra merges them, and read-repaired), judged by
 * the load tester's checker (tools/loadtest/checker.ts) against every acknowledged move of both
 * regions, the acknowledgements searched for one version given to two writes (history.ts
 * doubledVersions: a lost write the final order may hide), then audited (`regrid audit`'s function, service/read/audit.ts), then read again
 * through each region's own service to see that both regions now serve that same grid.
 */
import { types, type Client } from 'cassandra-driver';
import { loadConfig } from '../../../src/config/config.js';
import { issueToken } from '../../../src/http/auth.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { checkGrid, countByKind, type Violation } from '../../../tools/loadtest/checker.js';
import { expectedOf } from '../../../tools/loadtest/grid-model.js';
import { doubledVersions, linearize } from '../../../tools/loadtest/history.js';
import { httpCall } from '../../../tools/loadtest/http-call.js';
import type { RegionGrid } from '../../../tools/loadtest/region-load.js';
import { regionClient } from './regions-ring.js';
import { JWT_SECRET } from './region-services.js';

export interface RunCheck {
  readonly violations: readonly Violation[];
  readonly byKind: ReturnType<typeof countByKind>;
  /** Grids whose order could not be checked (too many unknown-outcome moves to resolve). */
  readonly ordersUnchecked: number;
  readonly resolved: { committed: number; notApplied: number };
  /** Audit findings by kind, over every grid of the run. */
  readonly audit: Record<string, number>;
  /** Grids a region's service reads differently from the ALL read (after it). */
  readonly regionsDiffer: number;
  /**
   * Versions acknowledged for two or more moves that each changed the grid (history.ts
   * doubledVersions), and how many acknowledged moves that makes missing (all but one of each).
   */
  readonly doubled: { versions: number; movesMissing: number };
}

const PAGE = 100;

/** A service reading at `level` from the root namespace (it never writes nor issues IDs). */
function reader(client: Client, keyspace: string, dc: number, level: 'all' | 'localQuorum') {
  const config = loadConfig({
    NODE_ENV: 'test',
    CASSANDRA_KEYSPACE: keyspace,
    CASSANDRA_LOCAL_DC: `dc${dc}`,
    CASSANDRA_CONSISTENCY: level,
  });
  const ids = { next: (): bigint => { throw new Error('the checker never creates posts'); } }; // prettier-ignore
  return new GridService({ cql: cqlOf(client), config, ids, cursorSecret: 'regions-check-cursor-secret-0123' }); // prettier-ignore
}

/** Grids as region `dc`'s replicas hold them (LOCAL_QUORUM, no cache): order and version. */
export async function readLocal(keyspace: string, dc: number, profileIds: readonly bigint[]) {
  const client = regionClient(dc, keyspace);
  try {
    const service = reader(client, keyspace, dc, 'localQuorum');
    const out = new Map<bigint, { order: bigint[]; version: bigint }>();
    for (const id of profileIds) {
      const version = (await service.reader.readHead(id)).version;
      out.set(id, { order: await readAllVia(service, id), version });
    }
    return out;
  } finally {
    await client.shutdown();
  }
}

async function readAllVia(service: GridService, profileId: bigint): Promise<bigint[]> {
  const out: bigint[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await service.pages.page({ profileId, limit: PAGE, cursor });
    out.push(...page.entries.map((e) => e.postId));
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
  throw new Error(`grid ${profileId} did not end`);
}

/** The whole grid as a region's service pages it (public read route). */
export async function readAllHttp(
  base: string,
  profileId: bigint,
  attempts = 10,
): Promise<bigint[]> {
  // prettier-ignore
  for (let attempt = 1; ; attempt++) {
    try {
      return await readAllOnce(base, profileId);
    } catch (err) {
      // A service whose node just came back reconnects on its own schedule (~1 s).
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function readAllOnce(base: string, profileId: bigint): Promise<bigint[]> {
  const token = await issueToken(JWT_SECRET, profileId, 3600);
  const out: bigint[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await httpCall(`${base}/v1/profiles/${profileId}/grid?limit=${PAGE}${q}`, 'GET', { authorization: `Bearer ${token}` }, undefined, 20_000); // prettier-ignore
    if (res.status !== 200) throw new Error(`read ${profileId} at ${base}: HTTP ${res.status} ${res.text.slice(0, 200)}`); // prettier-ignore
    const page = JSON.parse(res.text) as { items: { id: string }[]; next_cursor: string | null };
    out.push(...page.items.map((i) => BigInt(i.id)));
    cursor = page.next_cursor;
    if (!cursor) return out;
  }
  throw new Error(`grid ${profileId} did not end`);
}

export async function checkRun(
  keyspace: string,
  grids: readonly RegionGrid[],
  bases: readonly string[],
): Promise<RunCheck> {
  const client = regionClient(1, keyspace, types.consistencies.all);
  try {
    const service = reader(client, keyspace, 1, 'all');
    const violations: Violation[] = [];
    const audit: Record<string, number> = {};
    const resolved = { committed: 0, notApplied: 0 };
    let ordersUnchecked = 0;
    let regionsDiffer = 0;
    const doubled = { versions: 0, movesMissing: 0 };
    for (const { model } of grids) {
      for (const d of doubledVersions(model.initial, linearize(model.acks))) {
        doubled.versions++;
        doubled.movesMissing += d.moves.length - 1;
      }
      const observed = await readAllVia(service, model.profileId);
      model.finalVersion = (await service.reader.readHead(model.profileId)).version;
      const r = checkGrid(expectedOf(model), observed);
      violations.push(...r.violations);
      if (!r.orderChecked) ordersUnchecked++;
      resolved.committed += r.resolved?.committed ?? 0;
      resolved.notApplied += r.resolved?.notApplied ?? 0;
      for (const f of (await service.auditProfile(model.profileId)).findings) {
        audit[f.kind] = (audit[f.kind] ?? 0) + 1;
      }
      const want = observed.join(',');
      for (const base of bases) {
        if ((await readAllHttp(base, model.profileId)).join(',') !== want) regionsDiffer++;
      }
    }
    return { violations, byKind: countByKind(violations), ordersUnchecked, resolved, audit, regionsDiffer, doubled }; // prettier-ignore
  } finally {
    await client.shutdown();
  }
}
