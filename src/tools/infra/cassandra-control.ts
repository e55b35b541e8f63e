/**
 * Stopping and inspecting the local node this project launched (its pidfile, node.json).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_DC, nodeLayout, type LayoutConfig, type NodeLayout } from './cassandra-files.js';
import { probeCql } from './cql-probe.js';
import { liveNodePid, readNodeState, type NodeState } from './embedded-cassandra.js';
import { isAlive, sleep } from './process-utils.js';

export interface StopResult {
  readonly stopped: boolean;
  readonly pid?: number;
  readonly detail: string;
}

/** Stops the node this project launched (pidfile): SIGTERM, wait up to graceMs, then SIGKILL. */
export async function stopCassandra(config: LayoutConfig, graceMs = 30_000): Promise<StopResult> {
  const layout = nodeLayout(config);
  const pid = liveNodePid(layout);
  if (!pid) {
    rmSync(layout.stateFile, { force: true });
    return { stopped: false, detail: 'no Cassandra node started by regrid is running' };
  }
  process.kill(pid, 'SIGTERM');
  const started = Date.now();
  while (isAlive(pid) && Date.now() - started < graceMs) await sleep(250);
  let detail = `stopped pid ${pid} (SIGTERM, ${((Date.now() - started) / 1000).toFixed(1)}s)`;
  if (isAlive(pid)) {
    process.kill(pid, 'SIGKILL');
    detail = `pid ${pid} ignored SIGTERM for ${graceMs / 1000}s; sent SIGKILL`;
  }
  rmSync(layout.stateFile, { force: true });
  return { stopped: true, pid, detail };
}

export interface CassandraStatus {
  readonly answering: boolean;
  readonly releaseVersion?: string;
  readonly pid?: number;
  readonly state?: NodeState;
  readonly layout: NodeLayout;
  readonly jarsResolved: boolean;
}

export async function cassandraStatus(config: LayoutConfig): Promise<CassandraStatus> {
  const layout = nodeLayout(config);
  const releaseVersion = await probeCql({
    host: '127.0.0.1',
    port: config.CASSANDRA_PORT,
    localDataCenter: LOCAL_DC,
  });
  const pid = liveNodePid(layout);
  const state = readNodeState(layout);
  return {
    answering: releaseVersion !== undefined,
    layout,
    jarsResolved: existsSync(join(layout.libDir, '.resolved')),
    ...(releaseVersion ? { releaseVersion } : {}),
    ...(pid ? { pid } : {}),
    ...(state ? { state } : {}),
  };
}
