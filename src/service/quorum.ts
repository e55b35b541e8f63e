/**
 * Can the configured consistency levels be met right now? Pure arithmetic over the replicas of
 * every token range of the keyspace and whether each is up (as this process's driver sees them:
 * store/replica-view.ts). A grid write needs both its Paxos round (CASSANDRA_SERIAL_CONSISTENCY)
 * and its commit and reads (CASSANDRA_CONSISTENCY); when any range lacks the live replicas one of
 * them needs, writes to the profiles in that range fail with Unavailable, so /readyz says so.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../config/config.js';
import { replicaMap, type Replica, type ReplicaMap } from '../store/replica-view.js';

export type Level =
  'one' | 'localOne' | 'quorum' | 'localQuorum' | 'all' | 'serial' | 'localSerial';

/**
 * The replicas a level counts (all, or the local DC's) and how many of them must answer, as
 * Cassandra counts them: from the keyspace's replication factor, not from the nodes there are
 * (RF 3 on one node cannot meet a quorum: Unavailable).
 */
export function requirement(
  level: Level,
  replicas: readonly Replica[],
  rep: Pick<ReplicaMap, 'perDc' | 'rfByDc' | 'rf'>,
  localDc: string,
): { readonly pool: readonly Replica[]; readonly needed: number } {
  const local = level === 'localOne' || level === 'localQuorum' || level === 'localSerial';
  const pool = local ? replicas.filter((r) => r.dc === localDc) : replicas;
  // Cassandra: LOCAL_QUORUM counts the local DC's RF under NetworkTopologyStrategy, else the RF.
  const rf = local && rep.perDc ? (rep.rfByDc[localDc] ?? 0) : rep.rf;
  if (level === 'one' || level === 'localOne') return { pool, needed: 1 };
  if (level === 'all') return { pool, needed: Math.max(1, rep.rf) };
  return { pool, needed: Math.floor(rf / 2) + 1 };
}

export interface QuorumVerdict {
  readonly met: boolean;
  /** Token ranges at least one level cannot be met on, of `ranges`. */
  readonly unmet: number;
  readonly ranges: number;
  /** The first shortfall found, for the message. */
  readonly example?: { readonly level: Level; readonly up: number; readonly needed: number };
}

export function quorumVerdict(
  rep: ReplicaMap,
  levels: readonly Level[],
  localDc: string,
): QuorumVerdict {
  let unmet = 0;
  let example: QuorumVerdict['example'];
  for (const replicas of rep.ranges) {
    const short = levels
      .map((level) => {
        const { pool, needed } = requirement(level, replicas, rep, localDc);
        return { level, up: pool.filter((r) => r.up).length, needed };
      })
      .find((s) => s.up < s.needed);
    if (short) {
      unmet++;
      example ??= short;
    }
  }
  return { met: unmet === 0, unmet, ranges: rep.ranges.length, ...(example ? { example } : {}) };
}

/** One line for logs and docs: "2 of 3 token ranges cannot meet localQuorum (1 up, needs 2)". */
export function describeVerdict(v: QuorumVerdict): string {
  if (v.met) return `every one of ${v.ranges} token ranges has the replicas its levels need`;
  const e = v.example!;
  return `${v.unmet} of ${v.ranges} token ranges cannot meet ${e.level} (${e.up} replicas up, needs ${e.needed})`;
}

/** The check /readyz runs: this keyspace's ranges against both configured levels. */
export function quorumCheck(
  client: Client,
  config: Pick<
    Config,
    | 'CASSANDRA_KEYSPACE'
    | 'CASSANDRA_LOCAL_DC'
    | 'CASSANDRA_CONSISTENCY'
    | 'CASSANDRA_SERIAL_CONSISTENCY'
  >,
): () => QuorumVerdict | undefined {
  const levels: Level[] = [config.CASSANDRA_CONSISTENCY, config.CASSANDRA_SERIAL_CONSISTENCY];
  return () => {
    const rep = replicaMap(client, config.CASSANDRA_KEYSPACE);
    return rep && quorumVerdict(rep, levels, config.CASSANDRA_LOCAL_DC);
  };
}
