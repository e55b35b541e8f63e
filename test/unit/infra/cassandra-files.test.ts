import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { cassandraYaml, nodeLayout } from '../../../tools/infra/cassandra-files.js';

const yamlOf = (env: Record<string, string>) =>
  cassandraYaml(nodeLayout(loadConfig({}, { REGRID_HOME: '/tmp/regrid-unit', ...env })));

describe('cassandra.yaml of the local node', () => {
  it('uses Paxos v2 unless CASSANDRA_PAXOS_VARIANT asks for v1', () => {
    expect(yamlOf({})).toMatch(/^paxos_variant: v2$/m);
    expect(yamlOf({ CASSANDRA_PAXOS_VARIANT: 'v1' })).toMatch(/^paxos_variant: v1$/m);
    expect(yamlOf({ CASSANDRA_PAXOS_VARIANT: 'v1' })).not.toMatch(/paxos_variant: v2/);
  });

  it('refuses any other variant at start-up', () => {
    expect(() => loadConfig({}, { CASSANDRA_PAXOS_VARIANT: 'v3' })).toThrow(
      /CASSANDRA_PAXOS_VARIANT/,
    );
    expect(() =>
      loadConfig({}, { CASSANDRA_PAXOS_VARIANT: 'v2_without_linearizable_reads' }),
    ).toThrow(/CASSANDRA_PAXOS_VARIANT/);
  });
});
