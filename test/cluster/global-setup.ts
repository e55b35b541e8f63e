/**
 * Vitest global setup of the `cluster` project: a PRIVATE 3-node ring (tools/infra/ring.ts,
 * REGRID_HOME=/tmp/regrid-cluster, 127.0.0.1–3, CQL 19342, storage 17400, JMX 17500+) with the
 * keyspace `regrid_cluster` at replication factor 3 (NetworkTopologyStrategy, datacenter1), and a
 * PRIVATE redis-server on 16479. Jars come from ~/.m2 (resolved into the private home).
 *
 * A ring already fully up under that home is reused and left running (fast local reruns); one
 * this setup started is stopped at teardown, node by node by the PIDs in their pidfiles
 * (REGRID_CLUSTER_KEEP=1 keeps it). Something else answering on the ring's CQL port is an error,
 * never a process to signal.
 */
import type { TestProject } from 'vitest/node';
import { nodeLayout } from '../../tools/infra/cassandra-files.js';
import { probeCql } from '../../tools/infra/cql-probe.js';
import { startRing, stopRing } from '../../tools/infra/ring.js';
import { startPrivateRedis, stopPrivateRedis } from '../faults/support/redis-process.js';
import {
  CLUSTER_KEYSPACE,
  CLUSTER_REDIS_PORT,
  clusterConfig,
  ring,
  ringNodePid,
  RING_SIZE,
  signalRingNode,
} from './support/ring-stores.js';
import { openLocalCassandra } from '../../tools/infra/dev-stores.js';

export interface ClusterContext {
  readonly redisPid: number;
  readonly keyspace: string;
  /** Seconds the ring took to come up in this setup (0 when it was reused). */
  readonly ringUpS: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterContext;
  }
}

const log = (line: string) => console.log(`[cluster setup] ${line}`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now();
  const config = clusterConfig();
  for (const n of ring()) {
    const ep = {
      host: n.layout.address,
      port: n.layout.nativePort,
      localDataCenter: 'datacenter1',
    };
    if (ringNodePid(n.index) === undefined && (await probeCql(ep))) {
      throw new Error(
        `something that is not ring node ${n.index} answers CQL on ${ep.host}:${ep.port}`,
      );
    }
  }
  const running = ring().filter((n) => ringNodePid(n.index) !== undefined).length;
  // An interrupted run may have left a node paused.
  for (const n of ring())
    if (ringNodePid(n.index) !== undefined) signalRingNode(n.index, 'SIGCONT');
  const reused = running === RING_SIZE;
  const keep = process.env.REGRID_CLUSTER_KEEP === '1';
  const stopNodes = async () => {
    if (reused || keep) return;
    for (const line of await stopRing(config, 20_000)) log(line);
  };

  const redisPid = await startPrivateRedis(CLUSTER_REDIS_PORT, nodeLayout(config).home);
  log(`redis-server pid ${redisPid} on 127.0.0.1:${CLUSTER_REDIS_PORT}`);
  let ringUpS = 0;
  try {
    const r0 = Date.now();
    await startRing(config, RING_SIZE, (l) => log(l));
    ringUpS = reused ? 0 : (Date.now() - r0) / 1000;
    log(reused ? 'reused the ring already up' : `ring up in ${ringUpS.toFixed(1)}s`);
    const session = await openLocalCassandra(config, (l) => log(l));
    await session.client.shutdown();
  } catch (err) {
    await stopPrivateRedis(redisPid);
    await stopNodes();
    throw err;
  }
  log(`keyspace ${CLUSTER_KEYSPACE} (RF 3); ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  project.provide('cluster', { redisPid, keyspace: CLUSTER_KEYSPACE, ringUpS });

  return async () => {
    for (const n of ring())
      if (ringNodePid(n.index) !== undefined) signalRingNode(n.index, 'SIGCONT');
    await stopPrivateRedis(redisPid);
    await stopNodes();
  };
}
