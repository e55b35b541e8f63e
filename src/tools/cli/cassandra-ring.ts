/**
 * The ring commands of `npm run cassandra:*` (cassandra.ts dispatches here when `--nodes N` > 1
 * or `CASSANDRA_NODES` > 1, or a ring exists under REGRID_HOME).
 */
import type { Config } from '../../config.js';
import {
  killNode,
  ringNodes,
  ringSize,
  ringStatus,
  startNode,
  startRing,
  stopRing,
} from '../infra/ring.js';

const log = (l: string) => console.log(`[ring] ${l}`);

export async function ringUp(config: Config, nodes: number): Promise<number> {
  const t0 = Date.now();
  const ring = await startRing(config, nodes, log);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(
    `${nodes}-node ring up in ${secs}s: ${ring.map((n) => `${n.layout.address}:${n.layout.nativePort}`).join(', ')} ` +
      `(dc ${'datacenter1'}); use CASSANDRA_CONTACT_POINTS=${ring.map((n) => n.layout.address).join(',')} ` +
      `CASSANDRA_REPLICATION=NetworkTopologyStrategy:datacenter1=${Math.min(3, nodes)}`,
  );
  return 0;
}

export async function ringDown(config: Config): Promise<number> {
  for (const line of await stopRing(config)) console.log(line);
  return 0;
}

export async function ringStatusCommand(config: Config, json: boolean): Promise<number> {
  const nodes = await ringStatus(config);
  if (json) console.log(JSON.stringify({ nodes }));
  else
    for (const n of nodes)
      console.log(
        `${n.address}  ${n.state.padEnd(7)} pid ${n.pid ?? '-'}  cql ${n.cql_port}  jmx ${n.jmx_port}`,
      );
  return nodes.length > 0 && nodes.every((n) => n.state === 'UN') ? 0 : 1;
}

export function stopNodeCommand(config: Config, index: number): number {
  const pid = killNode(config, index);
  console.log(pid ? `node ${index}: SIGKILL sent to pid ${pid}` : `node ${index} is not running`);
  return pid ? 0 : 1;
}

export async function startNodeCommand(config: Config, index: number): Promise<number> {
  const node = ringNodes(config, ringSize(config)).find((n) => n.index === index);
  if (!node) {
    console.error(`no node ${index} in the ring under REGRID_HOME`);
    return 2;
  }
  const pid = await startNode(config, node, log);
  console.log(`node ${index} (${node.layout.address}) running, pid ${pid}`);
  return 0;
}
