/**
 * Stopping the local node this project launched (its pidfile, node.json); status of it and of
 * the ring: local-nodes.ts.
 */
import { rmSync } from 'node:fs';
import { nodeLayout, type LayoutConfig } from './cassandra-files.js';
import { liveNodePid } from './embedded-cassandra.js';
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
