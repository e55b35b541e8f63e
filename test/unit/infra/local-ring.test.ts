import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import {
  conflictMessage,
  nodePorts,
  singleState,
  statusExit,
  type LocalNodeStatus,
} from '../../../tools/infra/local-nodes.js';
import { ringNodes } from '../../../tools/infra/ring.js';
import { decideRing, ringConfig, withLocalRing } from '../../../tools/infra/ring-target.js';

const node = (name: string, state: LocalNodeStatus['state']): LocalNodeStatus => ({
  node: name,
  address: '127.0.0.1',
  pid: state === 'down' ? null : 1,
  cql_port: 9042,
  jmx_port: 7199,
  state,
});

describe('which local Cassandra a development process uses', () => {
  const home = '/h';
  it('a running ring (any node up) is used; none: the single node, with a note if a ring folder exists', () => {
    expect(decideRing({ wanted: 1, size: 0, live: 0, home })).toEqual({ use: 'single' });
    expect(decideRing({ wanted: 1, size: 3, live: 1, home })).toEqual({ use: 'ring', nodes: 3 });
    expect(decideRing({ wanted: 3, size: 3, live: 3, home })).toEqual({ use: 'ring', nodes: 3 });
    const stale = decideRing({ wanted: 1, size: 3, live: 0, home });
    expect(stale.use).toBe('single');
    expect(stale).toHaveProperty('note', expect.stringContaining('--nodes 3'));
  });

  it('CASSANDRA_NODES=N without that ring running says exactly what to run or set', () => {
    expect(decideRing({ wanted: 3, size: 0, live: 0, home })).toEqual({
      use: 'error',
      message: expect.stringContaining('`npm run cassandra:up -- --nodes 3`'),
    });
    expect(decideRing({ wanted: 3, size: 3, live: 0, home })).toEqual({
      use: 'error',
      message: expect.stringContaining(
        'is down: start it with `npm run cassandra:up -- --nodes 3`',
      ),
    });
    expect(decideRing({ wanted: 5, size: 3, live: 3, home })).toEqual({
      use: 'error',
      message: expect.stringContaining('set CASSANDRA_NODES=3'),
    });
  });

  it('never uses a ring of a different size than asked, and uses one whenever a node of it runs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        fc.nat(9),
        (wanted, size, l) => {
          const live = Math.min(l, size);
          const d = decideRing({ wanted, size, live, home });
          if (d.use === 'ring') expect(d.nodes).toBe(size);
          if (d.use === 'ring' && wanted > 1) expect(wanted).toBe(size);
          if (wanted === 1 && size > 0 && live > 0) expect(d.use).toBe('ring');
          if (wanted > 1) expect(d.use).not.toBe('single');
        },
      ),
    );
  });

  it('the ring config: every node, its own keyspace at RF min(3, N), a chosen replication kept', () => {
    const base = loadConfig({}, { REGRID_HOME: '/tmp/x' });
    const ring = ringConfig(base, 3);
    expect(ring.CASSANDRA_CONTACT_POINTS).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(ring.CASSANDRA_KEYSPACE).toBe('regrid_ring');
    expect(ring.CASSANDRA_REPLICATION).toEqual({
      class: 'NetworkTopologyStrategy',
      datacenter1: 3,
    });
    expect(ringConfig(base, 2).CASSANDRA_REPLICATION).toEqual({ class: 'NetworkTopologyStrategy', datacenter1: 2 }); // prettier-ignore
    const own = loadConfig(
      {},
      {
        CASSANDRA_KEYSPACE: 'mine',
        CASSANDRA_REPLICATION: 'SimpleStrategy:2',
      },
    );
    expect(ringConfig(own, 3).CASSANDRA_KEYSPACE).toBe('mine');
    expect(ringConfig(own, 3).CASSANDRA_REPLICATION).toEqual({ class: 'SimpleStrategy', replication_factor: 2 }); // prettier-ignore
  });

  it('configured contact points and production never look for a local ring', () => {
    const lines: string[] = [];
    const ext = loadConfig({}, { CASSANDRA_CONTACT_POINTS: '10.0.0.1', CASSANDRA_NODES: '3' });
    expect(withLocalRing(ext, (l) => lines.push(l))).toBe(ext);
    const prod = loadConfig({}, { NODE_ENV: 'production', CASSANDRA_NODES: '3', AUTH_JWT_SECRET: 'x'.repeat(32) }); // prettier-ignore
    expect(withLocalRing(prod, (l) => lines.push(l))).toBe(prod);
    // An empty private home with CASSANDRA_NODES=3: the message, not the single node.
    const none = loadConfig({}, { REGRID_HOME: '/tmp/regrid-no-ring-here', CASSANDRA_NODES: '3' });
    expect(() => withLocalRing(none, () => undefined)).toThrow(/no ring exists under REGRID_HOME=\/tmp\/regrid-no-ring-here/); // prettier-ignore
    expect(lines).toEqual([]);
  });
});

describe('cassandra status and up: the single node and the ring together', () => {
  it("the single node's state", () => {
    expect(singleState(true, true, false)).toBe('UN');
    expect(singleState(true, false, false)).toBe('starting');
    expect(singleState(false, false, false)).toBe('down');
    expect(singleState(false, true, false)).toBe('foreign');
    // Ring node 1 answering on the single node's port is the ring, not a foreign single node.
    expect(singleState(false, true, true)).toBe('down');
  });

  it('status exit: 0 when the single node or the whole ring is up, 1 a ring partly up, 3 nothing', () => {
    expect(statusExit([node('single', 'UN')])).toBe(0);
    expect(statusExit([node('single', 'foreign')])).toBe(0);
    expect(statusExit([node('single', 'down')])).toBe(3);
    expect(statusExit([node('single', 'starting')])).toBe(3);
    const ring = (...s: LocalNodeStatus['state'][]) => s.map((x, i) => node(`ring-${i + 1}`, x));
    expect(statusExit([node('single', 'down'), ...ring('UN', 'UN', 'UN')])).toBe(0);
    expect(statusExit([node('single', 'down'), ...ring('UN', 'DN', 'down')])).toBe(1);
    expect(statusExit([node('single', 'down'), ...ring('down', 'down', 'down')])).toBe(3);
    // The footgun's case: a stale ring folder while the single node serves.
    expect(statusExit([node('single', 'UN'), ...ring('down', 'down', 'down')])).toBe(0);
  });

  it("ring node 1 needs the single node's CQL, storage and JMX ports", () => {
    const config = loadConfig({}, { REGRID_HOME: '/tmp/x' });
    const [first, second] = ringNodes(config, 3);
    expect(nodePorts(first!.layout)).toEqual([
      { address: '127.0.0.1', port: 9042, setting: 'CASSANDRA_PORT' },
      { address: '127.0.0.1', port: 7000, setting: 'CASSANDRA_STORAGE_PORT' },
      { address: '127.0.0.1', port: 7199, setting: 'CASSANDRA_JMX_PORT' },
    ]);
    expect(nodePorts(second!.layout).map((p) => `${p.address}:${p.port}`)).toEqual([
      '127.0.0.2:9042',
      '127.0.0.2:7000',
      '127.0.0.1:7299',
    ]);
  });

  it('a port held by the single node names it and the ways out; a stranger is named too', () => {
    const held = [{ address: '127.0.0.1', port: 9042, setting: 'CASSANDRA_PORT' as const }];
    const ours = conflictMessage(held, 4242, 3);
    expect(ours).toContain('the single local node (pid 4242');
    expect(ours).toContain('127.0.0.1:9042 (CASSANDRA_PORT)');
    expect(ours).toContain('npm run cassandra:down -- --node single');
    expect(ours).toContain('--nodes 3 --stop-single');
    expect(conflictMessage(held, undefined, 3)).toContain('not started under this REGRID_HOME');
  });
});
