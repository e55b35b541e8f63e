/**
 * Tombstones on the ring, counted by every replica: a traced read at consistency ALL makes each of
 * the three replicas read the partition (one data read, two digest reads), and each logs its own
 * "Read N live rows and M tombstone cells" event into the trace (tools/loadtest/cql-trace.ts). Summed over
 * the replicas, that is what the partition holds on every copy, not just on the one a quorum read
 * happened to use.
 */
import { types, type Client } from 'cassandra-driver';
import {
  addTallies,
  emptyTally,
  tallyTraceEvents,
  type ReadTally,
} from '../../../tools/loadtest/cql-trace.js';
import { sleep } from '../../../tools/infra/process-utils.js';

/** Trace events of remote replicas arrive asynchronously: poll until `replicas` reads are in. */
async function tallyOf(client: Client, traceId: types.Uuid, replicas: number): Promise<ReadTally> {
  let last = emptyTally();
  for (let i = 0; i < 50; i++) {
    try {
      const trace = await client.metadata.getTrace(traceId);
      last = tallyTraceEvents(trace.events.map((e) => String(e.activity)));
      if (last.reads >= replicas) return last;
    } catch {
      // The session row is not written yet.
    }
    await sleep(100);
  }
  throw new Error(`trace ${traceId.toString()}: ${last.reads} of ${replicas} replica reads`);
}

/** A full read of one partition at ALL, every page traced; the tally summed over replicas. */
export async function replicaTally(
  client: Client,
  table: string,
  profileId: bigint,
  replicas = 3,
): Promise<ReadTally> {
  let tally = emptyTally();
  let pageState: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const rs = await client.execute(`SELECT * FROM ${table} WHERE profile_id = ?`, [profileId], {
      prepare: true,
      consistency: types.consistencies.all,
      traceQuery: true,
      fetchSize: 5000,
      ...(pageState ? { pageState } : {}),
    });
    tally = addTallies(tally, await tallyOf(client, rs.info.traceId, replicas));
    pageState = rs.pageState ?? undefined;
    if (!pageState) return tally;
  }
  throw new Error(`${table}/${profileId} did not end after 100 pages`);
}

/** The grid's two partitions (overrides and posts), each read on every replica. */
export async function gridTombstones(client: Client, profileId: bigint) {
  const overrides = await replicaTally(client, 'grid_overrides', profileId);
  const posts = await replicaTally(client, 'grid_posts', profileId);
  return { overrides, posts, total: addTallies(overrides, posts) };
}
