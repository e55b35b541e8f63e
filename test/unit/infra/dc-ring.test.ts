import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { isRegionsInvocation } from '../../../tools/cli/cmd-regions.js';
import { cassandraYaml, rackdcProperties } from '../../../tools/infra/cassandra-files.js';
import { dcReplication, dcRingNodes } from '../../../tools/infra/dc-ring.js';
import { planNamespaces } from '../../../tools/infra/netns.js';

const config = loadConfig({ REGRID_HOME: '/tmp/r' }, { CASSANDRA_STORAGE_PORT: '7400' });

describe('local multi-DC ring layout', () => {
  it('gives every node its own token, address, namespace and folder, all outside 127/8', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 255 }),
        (dcs, nodesPerDc, octet) => {
          const plan = { octet, dcs, nodesPerDc };
          const nodes = dcRingNodes(config, plan);
          expect(nodes).toHaveLength(dcs * nodesPerDc);
          for (const key of ['initialToken', 'address', 'netns', 'dataDir', 'stateFile'] as const) {
            expect(new Set(nodes.map((n) => n.layout[key])).size).toBe(nodes.length);
          }
          for (const n of nodes) {
            expect(n.layout.address).toBe(`10.${octet}.${n.dc}.${n.index}`);
            expect(planNamespaces(plan)).toContain(n.layout.netns);
          }
        },
      ),
    );
  });

  it('names each node its DC and rack, seeds the first node of every DC, and replicates per DC', () => {
    const plan = { octet: 77, dcs: 2, nodesPerDc: 2 };
    const nodes = dcRingNodes(config, plan);
    const yaml = cassandraYaml(nodes[3]!.layout);
    expect(yaml).toContain('endpoint_snitch: GossipingPropertyFileSnitch');
    expect(yaml).toContain('seeds: "10.77.1.1:7400,10.77.2.1:7400"');
    expect(yaml).toContain('listen_address: 10.77.2.2');
    expect(rackdcProperties(nodes[3]!.layout.dc!)).toContain('dc=dc2\nrack=rack1\n');
    expect(dcReplication(plan)).toEqual({ class: 'NetworkTopologyStrategy', dc1: 2, dc2: 2 });
  });

  it('sends the DC ring options and the link faults to the regions command, nothing else', () => {
    expect(isRegionsInvocation(['up', '--dcs', '2'])).toBe(true);
    expect(isRegionsInvocation(['up', '--nodes-per-dc=2'])).toBe(true);
    expect(isRegionsInvocation(['partition'])).toBe(true);
    expect(isRegionsInvocation(['isolate', 'dc1n1'])).toBe(true);
    expect(isRegionsInvocation(['heal'])).toBe(true);
    expect(isRegionsInvocation(['up', '--nodes', '3'])).toBe(false);
    expect(isRegionsInvocation(['status'])).toBe(false);
  });
});
