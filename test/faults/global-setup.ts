/**
 * Vitest global setup of the `faults` project: a PRIVATE Cassandra node (this project's own
 * provisioning, REGRID_HOME=/tmp/regrid-faults, CQL on 19142) migrated to `regrid_faults`, and a
 * PRIVATE redis-server on 16379. Both are stopped at teardown, by PID. Jars come from ~/.m2 on
 * the first run (resolved into REGRID_HOME), so nothing new is downloaded.
 *
 * Something already answering on those ports is used only if it is provably ours (a node
 * launched from the private folder, e.g. left by an interrupted run); anything else is an error,
 * never a process to signal.
 */
import type { TestProject } from 'vitest/node';
import { LOCAL_DC, nodeLayout } from '../../tools/infra/cassandra-files.js';
import { probeCql } from '../../tools/infra/cql-probe.js';
import { stopCassandra } from '../../tools/infra/cassandra-control.js';
import {
  FAULTS_KEYSPACE,
  FAULTS_REDIS_PORT,
  faultsConfig,
  privateNodePid,
} from './support/private-stores.js';
import { startPrivateRedis, stopPrivateRedis } from './support/redis-process.js';
import { openLocalCassandra } from '../../tools/infra/dev-stores.js';

export interface FaultsContext {
  readonly redisPid: number;
  readonly keyspace: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    faults: FaultsContext;
  }
}

const log = (line: string) => console.log(`[faults setup] ${line}`);

async function stopNode(): Promise<void> {
  const config = faultsConfig();
  const pid = privateNodePid(config);
  if (pid === undefined) return;
  process.kill(pid, 'SIGCONT');
  const res = await stopCassandra(config, 20_000);
  log(`cassandra: ${res.detail}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now();
  const config = faultsConfig();
  const layout = nodeLayout(config);
  const ep = { host: '127.0.0.1', port: config.CASSANDRA_PORT, localDataCenter: LOCAL_DC };
  if ((await probeCql(ep)) && privateNodePid(config) === undefined) {
    throw new Error(`something that is not the private node answers CQL on ${ep.port}`);
  }
  const redisPid = await startPrivateRedis(FAULTS_REDIS_PORT, layout.home);
  log(`redis-server pid ${redisPid} on 127.0.0.1:${FAULTS_REDIS_PORT}`);
  try {
    const session = await openLocalCassandra(config, (l) => log(l));
    await session.client.shutdown();
  } catch (err) {
    await stopPrivateRedis(redisPid);
    await stopNode();
    throw err;
  }
  log(`cassandra pid ${privateNodePid(config)} on ${ep.port}, keyspace ${FAULTS_KEYSPACE}`);
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  project.provide('faults', { redisPid, keyspace: FAULTS_KEYSPACE });

  return async () => {
    await stopPrivateRedis(redisPid);
    await stopNode();
  };
}
