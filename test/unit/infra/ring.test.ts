import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { cassandraYaml } from '../../../tools/infra/cassandra-files.js';
import { ringNodes, ringToken } from '../../../tools/infra/ring.js';

describe('local ring layout', () => {
  it('spaces one token per node evenly over the Murmur3 range', () => {
    const min = -(1n << 63n);
    const max = (1n << 63n) - 1n;
    for (const n of [1, 2, 3, 5]) {
      const tokens = Array.from({ length: n }, (_, i) => ringToken(i + 1, n));
      expect(tokens[0]).toBe(min);
      for (let i = 1; i < n; i++) {
        const gap = tokens[i]! - tokens[i - 1]!;
        expect(gap === (1n << 64n) / BigInt(n)).toBe(true);
      }
      expect(tokens.every((t) => t >= min && t <= max)).toBe(true);
    }
  });

  it('puts node i on 127.0.0.i with its own folders and JMX port, node 1 as the seed', () => {
    const config = loadConfig(
      {},
      {
        REGRID_HOME: '/tmp/r',
        CASSANDRA_STORAGE_PORT: '7400',
        CASSANDRA_JMX_PORT: '7500',
      },
    );
    const ring = ringNodes(config, 3);
    expect(ring.map((n) => n.layout.address)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(ring.map((n) => n.layout.jmxPort)).toEqual([7500, 7600, 7700]);
    expect(new Set(ring.map((n) => n.layout.dataDir)).size).toBe(3);
    const yaml = cassandraYaml(ring[1]!.layout);
    expect(yaml).toContain('listen_address: 127.0.0.2');
    expect(yaml).toContain('rpc_address: 127.0.0.2');
    expect(yaml).toContain('seeds: "127.0.0.1:7400"');
    expect(yaml).toContain(`initial_token: ${ringToken(2, 3)}`);
    expect(yaml).toContain('auto_bootstrap: false');
  });
});
