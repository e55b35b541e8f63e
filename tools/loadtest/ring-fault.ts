/**
 * `--cluster N` and `--kill-node-at`: the load tester on the local ring (tools/infra/ring.ts)
 * and a node lost under load. The ring under REGRID_HOME is started if it is not up (nodes that
 * run are reused); the service then talks to every node, keyspace at RF min(3, N) in the local DC.
 * The fault is a SIGKILL (a crash: no drain, no flush) and a restart of the same node on its data.
 */
import type { Config } from '../../src/config/config.js';
import { gossipView, killNode, RING_DC, ringNodes, startNode, startRing } from '../infra/ring.js';
import type { LoadtestOptions } from './options.js';
import type { RunEvent } from './run-events.js';

/** The config that points the load tester at the N-node ring (started or reused). */
export async function ringTarget(
  config: Config,
  nodes: number,
  log: (line: string) => void,
): Promise<Config> {
  const t0 = Date.now();
  const ring = await startRing(config, nodes, (l) => log(`[ring] ${l}`));
  log(`[ring] ${nodes} nodes up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return {
    ...config,
    CASSANDRA_CONTACT_POINTS: ring.map((n) => n.layout.address),
    CASSANDRA_LOCAL_DC: RING_DC,
    CASSANDRA_REPLICATION: { class: 'NetworkTopologyStrategy', [RING_DC]: Math.min(3, nodes) },
  };
}

/** The kill and the restart, as events of each design's run (fresh for every run). */
export function ringFaultEvents(
  config: Config,
  o: LoadtestOptions,
  log: (line: string) => void,
): (() => RunEvent[]) | undefined {
  const fault = o.fault;
  if (!fault || !o.cluster) return undefined;
  const node = ringNodes(config, o.cluster).find((n) => n.index === fault.node)!;
  return () => [
    {
      name: `node ${fault.node} SIGKILL`,
      at: fault.killAt,
      run: async () => {
        const pid = killNode(config, fault.node);
        log(`[ring] node ${fault.node} ${pid ? `killed (pid ${pid})` : 'was not running'}`);
      },
    },
    {
      name: `node ${fault.node} restarted on its data (until UN)`,
      at: fault.restartAt,
      mustRun: true,
      run: async () => {
        const pid = await startNode(config, node, (l) => log(`[ring] ${l}`));
        // Answering CQL is not yet serving: wait until node 1 sees it Up/Normal (bounded).
        const seed = ringNodes(config, o.cluster!)[0]!;
        for (let i = 0; i < 240; i++) {
          const view = await gossipView(seed).catch(() => undefined);
          if (view?.get(node.layout.address) === 'UN') break;
          await new Promise((r) => setTimeout(r, 500));
        }
        log(`[ring] node ${fault.node} back (pid ${pid})`);
      },
    },
  ];
}
