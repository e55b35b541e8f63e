/**
 * Which local Cassandra a development process talks to when no contact points are configured:
 * a ring that runs under REGRID_HOME (every node, replication factor min(3, N), keyspace
 * `regrid_ring`), else the single node. The ring gets a keyspace of its own because a process
 * that once connected to ring node 1 alone (it holds 127.0.0.1:CASSANDRA_PORT, like the single
 * node) created `regrid` at the single node's RF 1: a ring keyspace at RF 1 loses every write
 * to a range whose one replica is down. `CASSANDRA_NODES=N` asks for the ring and fails with what
 * to run when it is not there. Production (NODE_ENV=production) never looks for local nodes.
 */
import type { Config } from '../../src/config/config.js';
import { liveNodePid } from './embedded-cassandra.js';
import { RING_DC, ringNodes, ringSize } from './ring.js';

/** The local ring asked for is not there (the CLI's exit 3); the message says what to run. */
export class LocalRingUnavailable extends Error {
  override readonly name = 'LocalRingUnavailable';
}

/** The default keyspace's name on a local ring (an explicitly chosen other keyspace is kept). */
export const RING_KEYSPACE = 'regrid_ring';

export interface RingFacts {
  /** CASSANDRA_NODES. */
  readonly wanted: number;
  /** Nodes of the ring made under REGRID_HOME (0: none). */
  readonly size: number;
  /** Of those, how many run now. */
  readonly live: number;
  readonly home: string;
}

export type RingDecision =
  | { readonly use: 'single'; readonly note?: string }
  | { readonly use: 'ring'; readonly nodes: number }
  | { readonly use: 'error'; readonly message: string };

/** Pure: what the facts call for. */
export function decideRing(f: RingFacts): RingDecision {
  const up = `npm run cassandra:up -- --nodes ${f.wanted > 1 ? f.wanted : Math.max(f.size, 3)}`;
  if (f.wanted > 1 && f.size === 0) {
    return {
      use: 'error',
      message:
        `CASSANDRA_NODES=${f.wanted} but no ring exists under REGRID_HOME=${f.home}: start it ` +
        `with \`${up}\`, or unset CASSANDRA_NODES to use the single node`,
    };
  }
  if (f.wanted > 1 && f.size !== f.wanted) {
    return {
      use: 'error',
      message:
        `CASSANDRA_NODES=${f.wanted} but the ring under REGRID_HOME=${f.home} has ${f.size} ` +
        `nodes: set CASSANDRA_NODES=${f.size}, or use another REGRID_HOME`,
    };
  }
  if (f.size > 0 && f.live > 0) return { use: 'ring', nodes: f.size };
  if (f.wanted > 1) {
    return {
      use: 'error',
      message: `the ${f.size}-node ring under REGRID_HOME=${f.home} is down: start it with \`${up}\``,
    };
  }
  return f.size > 0
    ? {
        use: 'single',
        note:
          `a ${f.size}-node ring exists under REGRID_HOME but none of its nodes runs: using the ` +
          `single node (\`npm run cassandra:up -- --nodes ${f.size}\` starts the ring)`,
      }
    : { use: 'single' };
}

/** The config for a ring of `nodes`: every address, RF min(3, N) unless one was chosen. */
export function ringConfig(config: Config, nodes: number): Config {
  const rep = config.CASSANDRA_REPLICATION;
  const chosen = !(rep['class'] === 'SimpleStrategy' && rep['replication_factor'] === 1);
  return {
    ...config,
    CASSANDRA_CONTACT_POINTS: ringNodes(config, nodes).map((n) => n.layout.address),
    CASSANDRA_LOCAL_DC: RING_DC,
    CASSANDRA_KEYSPACE:
      config.CASSANDRA_KEYSPACE === 'regrid' ? RING_KEYSPACE : config.CASSANDRA_KEYSPACE,
    CASSANDRA_REPLICATION: chosen
      ? rep
      : { class: 'NetworkTopologyStrategy', [RING_DC]: Math.min(3, nodes) },
  };
}

/** `config`, pointed at the local ring when one runs (see the top of this file). */
export function withLocalRing(config: Config, log: (line: string) => void): Config {
  if (config.NODE_ENV === 'production' || config.CASSANDRA_CONTACT_POINTS.length > 0) {
    return config;
  }
  const size = ringSize(config);
  const live = ringNodes(config, size).filter((n) => liveNodePid(n.layout) !== undefined).length;
  const home = ringNodes(config, 1)[0]!.layout.home;
  const decision = decideRing({ wanted: config.CASSANDRA_NODES, size, live, home });
  if (decision.use === 'error') throw new LocalRingUnavailable(decision.message);
  if (decision.use === 'single') {
    if (decision.note) log(`[cassandra] ${decision.note}`);
    return config;
  }
  const ring = ringConfig(config, decision.nodes);
  const rf = Object.values(ring.CASSANDRA_REPLICATION).find((v) => typeof v === 'number');
  log(
    `[cassandra] the local ${size}-node ring runs under REGRID_HOME (${live} of ${size} nodes ` +
      `up): ${ring.CASSANDRA_CONTACT_POINTS.join(', ')}, keyspace ${ring.CASSANDRA_KEYSPACE}, ` +
      `replication factor ${rf}`,
  );
  return ring;
}
