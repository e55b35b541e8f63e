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
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openCassandra } from '../../src/bootstrap.js';
import { LOCAL_DC, nodeLayout } from '../../src/tools/infra/cassandra-files.js';
import { probeCql } from '../../src/tools/infra/cql-probe.js';
import { stopCassandra } from '../../src/tools/infra/cassandra-control.js';
import { isAlive, sleep, tcpOpen } from '../../src/tools/infra/process-utils.js';
import { redisAnswers } from '../../src/tools/infra/redis-local.js';
import {
  FAULTS_KEYSPACE,
  FAULTS_REDIS_PORT,
  faultsConfig,
  privateNodePid,
} from './support/private-stores.js';

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

async function startRedis(home: string): Promise<number> {
  if (await tcpOpen('127.0.0.1', FAULTS_REDIS_PORT, 300)) {
    throw new Error(`127.0.0.1:${FAULTS_REDIS_PORT} is in use by another process`);
  }
  const dir = join(home, 'redis');
  mkdirSync(dir, { recursive: true });
  const out = openSync(join(dir, `redis-${FAULTS_REDIS_PORT}.log`), 'a');
  // Foreground (no --daemonize), so the PID is the server's own; a cache: no persistence.
  const child = spawn(
    'redis-server',
    ['--port', String(FAULTS_REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], // prettier-ignore
    { stdio: ['ignore', out, out] },
  );
  closeSync(out);
  if (child.pid === undefined) throw new Error('could not spawn redis-server');
  for (let i = 0; i < 100; i++) {
    if (await redisAnswers('127.0.0.1', FAULTS_REDIS_PORT)) return child.pid;
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`private redis-server did not answer on ${FAULTS_REDIS_PORT}`);
}

async function stopRedis(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGCONT'); // a test that failed mid-pause must not leave it stopped
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

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
  const redisPid = await startRedis(layout.home);
  log(`redis-server pid ${redisPid} on 127.0.0.1:${FAULTS_REDIS_PORT}`);
  try {
    const session = await openCassandra(config, (l) => log(l));
    await session.client.shutdown();
  } catch (err) {
    await stopRedis(redisPid);
    await stopNode();
    throw err;
  }
  log(`cassandra pid ${privateNodePid(config)} on ${ep.port}, keyspace ${FAULTS_KEYSPACE}`);
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  project.provide('faults', { redisPid, keyspace: FAULTS_KEYSPACE });

  return async () => {
    await stopRedis(redisPid);
    await stopNode();
  };
}
