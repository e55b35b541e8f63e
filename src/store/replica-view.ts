/**
 * A keyspace's replication (from the driver's schema metadata) and every token range with its
 * replicas' data centers and whether the driver holds each one up (host state: a node that
 * refused or dropped its connections is down at once; a frozen one only when its connection
 * fails). No query is sent.
 */
import type { Client } from 'cassandra-driver';

export interface Replica {
  readonly dc: string;
  readonly up: boolean;
}

export interface ReplicaMap {
  /** NetworkTopologyStrategy: the RF is per data center; otherwise one RF for the cluster. */
  readonly perDc: boolean;
  /** RF per data center (perDc), and their sum (or the one RF). */
  readonly rfByDc: Readonly<Record<string, number>>;
  readonly rf: number;
  readonly ranges: readonly (readonly Replica[])[];
}

interface KeyspaceMeta {
  readonly strategy?: string;
  readonly strategyOptions?: Record<string, string>;
}

/** undefined while the driver has no token map or no metadata for `keyspace`. */
export function replicaMap(client: Client, keyspace: string): ReplicaMap | undefined {
  const meta = client.metadata;
  const ks = (meta.keyspaces as Record<string, KeyspaceMeta | undefined>)[keyspace];
  const ranges = meta.getTokenRanges();
  if (!ks?.strategy || !ranges || ranges.size === 0) return undefined;
  const perDc = ks.strategy.endsWith('NetworkTopologyStrategy');
  const options = Object.entries(ks.strategyOptions ?? {}).filter(([k]) => k !== 'class');
  const rfByDc = perDc ? Object.fromEntries(options.map(([dc, rf]) => [dc, Number(rf)])) : {};
  const rf = perDc
    ? Object.values(rfByDc).reduce((a, b) => a + b, 0)
    : Number(ks.strategyOptions?.['replication_factor'] ?? 1);
  const out: Replica[][] = [];
  for (const range of ranges) {
    const hosts = meta.getReplicas(keyspace, range);
    if (!hosts) return undefined;
    out.push(hosts.map((h) => ({ dc: h.datacenter, up: h.isUp() })));
  }
  return { perDc, rfByDc, rf, ranges: out };
}
