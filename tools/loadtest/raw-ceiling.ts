/**
 * The raw ceiling for moves: bare conditional batches on the override partition, straight through
 * cassandra-driver, with no service logic (no head read, no key engine, no retries). Each batch is
 * exactly the statement shape a one-row move commits — `IF version = ?` plus one override upsert,
 * built by the store's own `buildCasStatements` — so regrid's moves/s divided by this figure says
 * how much the service adds on top of Paxos itself.
 *
 * Two modes. Distinct partitions (`measureRawCeiling`): every worker owns its own profiles and
 * tracks their versions locally, so batches never contend: the best case the cluster can do at the
 * given concurrency. One partition (`measurePartitionCeiling`): one writer on one partition, each
 * batch sent when the previous one is answered: the serial floor of a single hot grid whose
 * writes take turns and commit one move each.
 */
import type { Client } from 'cassandra-driver';
import { types } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { buildCasStatements } from '../../src/store/grid-mutation.js';
import type { RawCeilingFigures } from './design.js';

export type RawCeiling = RawCeilingFigures;

export interface RawCeilingOptions {
  readonly batches: number;
  readonly concurrency: number;
  /** Fresh profile IDs for the ceiling partitions (at least `concurrency` of them). */
  readonly profileIds: readonly bigint[];
  readonly posts: number;
  readonly onBatch?: () => void;
}

export async function measureRawCeiling(
  client: Client,
  config: Config,
  o: RawCeilingOptions,
): Promise<RawCeiling> {
  if (o.profileIds.length < o.concurrency) throw new Error('need one ceiling profile per worker');
  const versions = new Map<bigint, bigint>(o.profileIds.map((p) => [p, 0n]));
  const options = {
    prepare: true,
    consistency: types.consistencies[config.CASSANDRA_CONSISTENCY],
    serialConsistency: types.consistencies[config.CASSANDRA_SERIAL_CONSISTENCY],
  };
  let issued = 0;
  let notApplied = 0;
  let failed = 0;

  const worker = async (w: number) => {
    const mine = o.profileIds.filter((_, i) => i % o.concurrency === w);
    for (let n = 0; issued < o.batches; n++) {
      issued++;
      const profileId = mine[n % mine.length]!;
      const expected = versions.get(profileId)!;
      const next = expected + 1n;
      const postId = BigInt((n % o.posts) + 1);
      const statements = buildCasStatements(profileId, expected, next, {
        upserts: [{ postId, sortKey: next * 1_000_003n, movedVersion: next }],
      });
      try {
        const rs = await client.batch(statements, options);
        if (rs.wasApplied()) versions.set(profileId, next);
        else {
          notApplied++;
          // The refusal carries the version that is there (e.g. a timed-out batch did apply).
          const current = rs.first()?.get('version') as bigint | null | undefined;
          if (current !== null && current !== undefined) versions.set(profileId, current);
        }
      } catch {
        failed++; // a ring node lost or slow: the batch counts, the measurement goes on
      }
      o.onBatch?.();
    }
  };

  const start = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, (_, w) => worker(w)));
  const seconds = (performance.now() - start) / 1000;
  return { batches: issued, seconds, perSecond: (issued - failed) / seconds, notApplied, failed };
}

/** Bare conditional batches on ONE partition from ONE writer (see the header). */
export function measurePartitionCeiling(
  client: Client,
  config: Config,
  o: { batches: number; profileId: bigint; posts: number; onBatch?: () => void },
): Promise<RawCeiling> {
  return measureRawCeiling(client, config, {
    batches: o.batches,
    concurrency: 1,
    profileIds: [o.profileId],
    posts: o.posts,
    ...(o.onBatch ? { onBatch: o.onBatch } : {}),
  });
}
