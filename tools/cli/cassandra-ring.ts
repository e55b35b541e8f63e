/**
 * The ring parts of `regrid cassandra` (cmd-cassandra.ts): up with a port check first, and the
 * fault drills stop-node / start-node.
 */
import type { Config } from '../../src/config/config.js';
import { stopCassandra } from '../infra/cassandra-control.js';
import { nodeLayout } from '../infra/cassandra-files.js';
import { liveNodePid } from '../infra/embedded-cassandra.js';
import { conflictMessage, ringPortConflicts } from '../infra/local-nodes.js';
import { killNode, ringNodes, ringSize, startNode, startRing } from '../infra/ring.js';
import { ringConfig } from '../infra/ring-target.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/regrid-commands.js';

export async function ringUp(
  config: Config,
  nodes: number,
  stopSingle: boolean,
  io: Io,
): Promise<number> {
  const made = ringSize(config);
  if (made !== 0 && made !== nodes) {
    io.err(
      `a ${made}-node ring exists under REGRID_HOME (${nodeLayout(config).home}): ` +
        `use --nodes ${made}, or stop it and remove its folder first`,
    );
    return EXIT.usage;
  }
  let conflicts = await ringPortConflicts(config, nodes);
  const singlePid = liveNodePid(nodeLayout(config));
  if (conflicts.length > 0 && singlePid !== undefined && stopSingle) {
    io.err(`[ring] ${(await stopCassandra(config)).detail} (the single node, --stop-single)`);
    conflicts = await ringPortConflicts(config, nodes);
  }
  if (conflicts.length > 0) {
    io.err(conflictMessage(conflicts, liveNodePid(nodeLayout(config)), nodes));
    return EXIT.unavailable;
  }
  const t0 = Date.now();
  const ring = await startRing(config, nodes, (l) => io.err(`[ring] ${l}`));
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const target = ringConfig(config, nodes);
  io.out(
    `${nodes}-node ring up in ${secs}s: ${ring.map((n) => `${n.layout.address}:${n.layout.nativePort}`).join(', ')}; ` +
      `npm start and the regrid commands use it by themselves (keyspace ${target.CASSANDRA_KEYSPACE}, ` +
      `${JSON.stringify(target.CASSANDRA_REPLICATION)})`,
  );
  return EXIT.ok;
}

export function stopNodeCommand(config: Config, index: number, io: Io): number {
  const pid = killNode(config, index);
  if (pid) io.out(`node ${index}: SIGKILL sent to pid ${pid}`);
  else io.err(`node ${index} is not running`);
  return pid ? EXIT.ok : EXIT.findings;
}

export async function startNodeCommand(config: Config, index: number, io: Io): Promise<number> {
  const node = ringNodes(config, ringSize(config)).find((n) => n.index === index);
  if (!node) {
    io.err(`no node ${index} in the ring under REGRID_HOME (${nodeLayout(config).home})`);
    return EXIT.usage;
  }
  const pid = await startNode(config, node, (l) => io.err(`[ring] ${l}`));
  io.out(`node ${index} (${node.layout.address}) running, pid ${pid}`);
  return EXIT.ok;
}
