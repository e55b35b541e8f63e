/**
 * The regions suite's private two-DC ring (tools/infra/dc-ring.ts): REGRID_HOME=/tmp/regrid-regions,
 * one node per DC, each in its own network namespace on 10.78.k.1 (octet 78: a developer's
 * `cassandra:up -- --dcs 2` uses 77), keyspace `regrid_regions` at {dc1: 1, dc2: 1}. Values are
 * fixed here, so a developer's environment cannot point the suite at another ring.
 */
import { Client, types } from 'cassandra-driver';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { dcRingNodes, type DcNode } from '../../../tools/infra/dc-ring.js';
import { liveNodePid } from '../../../tools/infra/embedded-cassandra.js';
import type { NetPlan } from '../../../tools/infra/netns.js';
import { commandLineOf } from '../../../tools/infra/process-utils.js';

export const REGIONS_KEYSPACE = 'regrid_regions';
export const PLAN: NetPlan = { octet: 78, dcs: 2, nodesPerDc: 1 };

export function regionsConfig(): Config {
  return loadConfig(
    { NODE_ENV: 'test', REGRID_HOME: '/tmp/regrid-regions', CASSANDRA_KEYSPACE: REGIONS_KEYSPACE },
    { CASSANDRA_HEAP: '512M' }, // a constant: set in code
  );
}

export const dcNodes = (): DcNode[] => dcRingNodes(regionsConfig(), PLAN);

/** A node's PID, only if that process is the JVM running from that node's folder. */
export function dcNodePid(node: DcNode): number | undefined {
  const pid = liveNodePid(node.layout);
  return pid !== undefined && commandLineOf(pid).includes(node.layout.nodeDir) ? pid : undefined;
}

/** A client that routes only to DC `dc`'s nodes (its local DC), retrying a lost node at once. */
export function regionClient(
  dc: number,
  keyspace?: string,
  consistency: types.consistencies = types.consistencies.localQuorum,
): Client {
  const nodes = dcNodes().filter((n) => n.dc === dc);
  return new Client({
    contactPoints: nodes.map((n) => n.layout.address),
    localDataCenter: `dc${dc}`,
    protocolOptions: { port: nodes[0]!.layout.nativePort },
    ...(keyspace ? { keyspace } : {}),
    socketOptions: { readTimeout: 15_000, connectTimeout: 5_000 },
    queryOptions: { consistency },
    // CQL bigint as JS bigint, as regrid's own clients (src/store/cassandra.ts).
    encoding: { useBigIntAsLong: true },
  });
}
