/**
 * Cassandra's own accounting of what a read touched, from query tracing.
 *
 * With `traceQuery: true` the coordinator records a trace session; each replica read logs an event
 * "Read N live rows and M tombstone cells" (ReadCommand's metric recording). Summing those events
 * over every request of an operation tells exactly how many tombstones it met: this is how the
 * tests prove that moves leave the read path tombstone-free.
 *
 * Trace rows are written asynchronously after the response, so fetching retries briefly until
 * the session is complete and the read events have appeared.
 */
import type { Client, QueryOptions, types } from 'cassandra-driver';
import type { Cql } from '../../src/store/cassandra.js';

export interface ReadTally {
  readonly liveRows: number;
  readonly tombstoneCells: number;
  /** Number of "Read … live rows …" events summed (one per replica read, per page). */
  readonly reads: number;
}

const READ_EVENT = /Read (\d+) live rows and (\d+) tombstone cells/;

export const emptyTally = (): ReadTally => ({ liveRows: 0, tombstoneCells: 0, reads: 0 });

export const addTallies = (a: ReadTally, b: ReadTally): ReadTally => ({
  liveRows: a.liveRows + b.liveRows,
  tombstoneCells: a.tombstoneCells + b.tombstoneCells,
  reads: a.reads + b.reads,
});

/** Sums the read events among trace activities (pure; other events are ignored). */
export function tallyTraceEvents(activities: Iterable<string>): ReadTally {
  let tally = emptyTally();
  for (const activity of activities) {
    const m = READ_EVENT.exec(activity);
    if (m)
      tally = addTallies(tally, { liveRows: Number(m[1]), tombstoneCells: Number(m[2]), reads: 1 });
  }
  return tally;
}

export interface FetchTraceOptions {
  /** Keep polling until at least one read event is present (default true). */
  readonly expectRead?: boolean;
  readonly attempts?: number;
  readonly delayMs?: number;
}

/** Fetches one trace session and tallies its read events. */
export async function fetchReadTally(
  client: Client,
  traceId: types.Uuid,
  options: FetchTraceOptions = {},
): Promise<ReadTally> {
  const { expectRead = true, attempts = 40, delayMs = 100 } = options;
  let last = emptyTally();
  for (let i = 0; i < attempts; i++) {
    try {
      const trace = await client.metadata.getTrace(traceId);
      last = tallyTraceEvents(trace.events.map((e) => String(e.activity)));
      if (!expectRead || last.reads > 0) return last;
    } catch {
      // The session row is not there yet: the driver gives up after its own few attempts.
    }
    await new Promise((r) => setTimeout(r, delayMs));
  }
  if (expectRead) throw new Error(`trace ${traceId.toString()} has no read events`);
  return last;
}

/** Executes one statement with tracing and returns its result plus the tally. */
export async function executeTraced(
  client: Client,
  query: string,
  params: unknown[] = [],
  options: QueryOptions = {},
): Promise<{ result: types.ResultSet; tally: ReadTally }> {
  const result = await client.execute(query, params, {
    prepare: true,
    ...options,
    traceQuery: true,
  });
  return { result, tally: await fetchReadTally(client, result.info.traceId) };
}

/**
 * A `Cql` that traces every `execute` (reads; batches pass through untraced) so a whole
 * store operation can be measured: run it against this, then `tally()`.
 */
export class TracingCql implements Cql {
  private readonly traceIds: types.Uuid[] = [];

  constructor(private readonly client: Client) {}

  async execute(query: string, params?: unknown[], options: QueryOptions = {}) {
    const rs = await this.client.execute(query, params, { ...options, traceQuery: true });
    if (rs.info.traceId) this.traceIds.push(rs.info.traceId);
    return rs;
  }

  batch(queries: Array<{ query: string; params?: unknown[] }>, options?: QueryOptions) {
    return this.client.batch(queries, options);
  }

  /** Number of traced requests so far. */
  get requests(): number {
    return this.traceIds.length;
  }

  /** Fetches every recorded trace and sums them; clears the record. */
  async tally(): Promise<ReadTally> {
    const ids = this.traceIds.splice(0);
    let sum = emptyTally();
    for (const id of ids) sum = addTallies(sum, await fetchReadTally(this.client, id));
    return sum;
  }
}
