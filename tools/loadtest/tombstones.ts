/**
 * Tombstone accounting, always from Cassandra's own figures, never from reasoning about what the
 * code wrote:
 *  - `partitionTombstones`: a traced full read of each grid partition of the run, summing the
 *    replicas' "Read N live rows and M tombstone cells" events (tools/loadtest/cql-trace.ts). The run's
 *    profiles are fresh, so this is exactly what the run left behind in its partitions.
 *  - `tableMetrics`: after `nodetool flush`, the tables' `nodetool tablestats` tombstone figures and
 *    the SSTables' own tombstone histograms (`sstablemetadata`). Whole-table figures (they include
 *    earlier runs), available for the locally provisioned node only.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { runNodetool, parseTableStats, sstableTombstones } from '../infra/nodetool.js';
import { addTallies, emptyTally, executeTraced, type ReadTally } from './cql-trace.js';

export interface PartitionTombstones {
  /** Tombstone cells per table, summed over the run's partitions. */
  readonly byTable: Readonly<Record<string, number>>;
  readonly total: number;
  /** profile → table → tombstones, only for partitions with any. */
  readonly perProfile: ReadonlyMap<bigint, Readonly<Record<string, number>>>;
  /** Partitions Cassandra refused to read (e.g. over tombstone_failure_threshold). */
  readonly unreadable: readonly string[];
}

const PAGE = 5000;

/** Traced full read of one partition, every page; returns the summed tally. */
export async function tracePartition(
  client: Client,
  table: string,
  profileId: bigint,
): Promise<ReadTally> {
  let tally = emptyTally();
  let pageState: string | undefined;
  do {
    const { result, tally: t } = await executeTraced(
      client,
      `SELECT * FROM ${table} WHERE profile_id = ?`,
      [profileId],
      { fetchSize: PAGE, isIdempotent: true, ...(pageState ? { pageState } : {}) },
    );
    tally = addTallies(tally, t);
    pageState = result.pageState ?? undefined;
  } while (pageState);
  return tally;
}

export async function partitionTombstones(
  client: Client,
  tables: readonly string[],
  profileIds: readonly bigint[],
  parallel = 4,
): Promise<PartitionTombstones> {
  const byTable: Record<string, number> = Object.fromEntries(tables.map((t) => [t, 0]));
  const perProfile = new Map<bigint, Record<string, number>>();
  const unreadable: string[] = [];
  const jobs = profileIds.flatMap((p) => tables.map((t) => [p, t] as const));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [profileId, table] = jobs[next++]!;
      try {
        const { tombstoneCells } = await tracePartition(client, table, profileId);
        byTable[table] = (byTable[table] ?? 0) + tombstoneCells;
        if (tombstoneCells > 0) {
          const row = perProfile.get(profileId) ?? {};
          row[table] = tombstoneCells;
          perProfile.set(profileId, row);
        }
      } catch (err) {
        unreadable.push(`${table}/${profileId}: ${(err as Error).message.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
  const total = Object.values(byTable).reduce((a, b) => a + b, 0);
  return { byTable, total, perProfile, unreadable };
}

export interface TableMetric {
  readonly sstables: number;
  /** From tablestats: tombstones met per read slice over the last five minutes. */
  readonly maxTombstonesPerSlice: number;
  readonly avgTombstonesPerSlice: number;
  /** From sstablemetadata: entries in the SSTables' tombstone drop-time histograms. */
  readonly sstableTombstones: number;
}

/**
 * Flushes the tables, then reads tablestats and sstablemetadata. Only for the node this machine
 * provisions (the tools read its local files and JMX on 127.0.0.1): callers decide.
 */
export async function tableMetrics(
  config: Config,
  keyspace: string,
  tables: readonly string[],
): Promise<Record<string, TableMetric>> {
  await runNodetool(['flush', keyspace, ...tables], config);
  const stats = await runNodetool(['tablestats', ...tables.map((t) => `${keyspace}.${t}`)], config);
  const out: Record<string, TableMetric> = {};
  for (const table of tables) {
    const s = parseTableStats(stats, table);
    const sst = await sstableTombstones(keyspace, table, config);
    out[table] = {
      sstables: s.sstableCount,
      maxTombstonesPerSlice: s.maximumTombstonesPerSlice,
      avgTombstonesPerSlice: s.averageTombstonesPerSlice,
      sstableTombstones: sst.reduce((n, f) => n + f.tombstoneDropTimeCount, 0),
    };
  }
  return out;
}
