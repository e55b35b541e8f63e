/**
 * Vitest global setup of the `regions` project: the private two-DC ring of
 * support/regions-ring.ts brought up by the project's own tooling (network namespaces first,
 * then the nodes one at a time), and its keyspace at NetworkTopologyStrategy {dc1: 1, dc2: 1}.
 *
 * A ring already fully up under that home is reused and left running; one this setup started is
 * stopped at teardown by the PIDs in its pidfiles, and its namespaces removed
 * (REGRID_REGIONS_KEEP=1 keeps it). Every link is brought up again first, whatever a test left.
 */
import type { TestProject } from 'vitest/node';
import { dcReplication, startDcRing, stopDcRing } from '../../tools/infra/dc-ring.js';
import { heal, namespaces, removeNet } from '../../tools/infra/netns.js';
import { probeCql } from '../../tools/infra/cql-probe.js';
import {
  dcNodePid,
  dcNodes,
  PLAN,
  regionClient,
  regionsConfig,
  REGIONS_KEYSPACE,
} from './support/regions-ring.js';

export interface RegionsContext {
  readonly keyspace: string;
  /** Seconds the ring took to come up in this setup (0 when it was reused). */
  readonly ringUpS: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    regions: RegionsContext;
  }
}

const log = (line: string) => console.log(`[regions setup] ${line}`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = regionsConfig();
  const nodes = dcNodes();
  const running = nodes.filter((n) => dcNodePid(n) !== undefined).length;
  if (running === 0 && namespaces().has(nodes[0]!.layout.netns!)) {
    // Namespaces without our nodes: another ring of this plan, or a leftover. Not ours to reuse.
    const ep = { host: nodes[0]!.layout.address, port: nodes[0]!.layout.nativePort, localDataCenter: 'dc1' }; // prettier-ignore
    if (await probeCql(ep)) throw new Error(`something not started under ${config.REGRID_HOME} answers on ${ep.host}`); // prettier-ignore
  }
  const reused = running === nodes.length;
  if (reused) heal(PLAN);
  const keep = process.env.REGRID_REGIONS_KEEP === '1';
  const stop = async () => {
    if (reused || keep) return;
    for (const line of await stopDcRing(config, 20_000)) log(line);
    if (nodes.every((n) => dcNodePid(n) === undefined)) log(`removed ${removeNet(PLAN).join(', ')}`); // prettier-ignore
  };
  let ringUpS = 0;
  try {
    const t0 = Date.now();
    await startDcRing(config, PLAN, log);
    ringUpS = reused ? 0 : (Date.now() - t0) / 1000;
    log(reused ? 'reused the DC ring already up' : `DC ring up in ${ringUpS.toFixed(1)}s`);
    const client = regionClient(1);
    try {
      const replication = JSON.stringify(dcReplication(PLAN)).replaceAll('"', "'");
      await client.execute(
        `CREATE KEYSPACE IF NOT EXISTS ${REGIONS_KEYSPACE} WITH replication = ${replication}`,
      );
    } finally {
      await client.shutdown();
    }
  } catch (err) {
    await stop();
    throw err;
  }
  project.provide('regions', { keyspace: REGIONS_KEYSPACE, ringUpS });
  return async () => {
    heal(PLAN);
    await stop();
  };
}
