/**
 * The local Cassandra node or ring that development and the tests run (config.ts; started by
 * tools/infra/, never by a production process), and the integration tests' choice of stores.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const LocalNodeConfig = {
  REGRID_HOME: z.string().default('.regrid').describe('jars, data and logs of the local node'),
  CASSANDRA_VERSION: z.string().default('5.0.8').describe('local node: `cassandra-all` version'),
  CASSANDRA_STORAGE_PORT: intFrom(7000, 1, 65535).describe('local node\'s internode port (loopback)'), // prettier-ignore
  CASSANDRA_JMX_PORT: intFrom(7199, 1, 65535).describe('local node\'s JMX (nodetool) port (loopback)'), // prettier-ignore
  CASSANDRA_HEAP: z
    .string()
    .regex(/^[0-9]+[MG]$/)
    .default('1G')
    .describe('local node: JVM heap'),
  CASSANDRA_NODES: intFrom(1, 1, 9).describe(
    'nodes `npm run cassandra:up` starts locally: 1, or a ring on 127.0.0.1…N ' +
      '(tools/infra/ring.ts); with N > 1, `npm start` and the CLI require that ring under ' +
      '`REGRID_HOME` and say what to run when it is not up ([cluster.md](cluster.md))',
  ),
  CASSANDRA_COMMITLOG_SYNC: z
    .enum(['periodic', 'group'])
    .default('group')
    .describe(
      "local node's commit log: `group` (synced every 15 ms before a write is acknowledged: a " +
        'killed node loses nothing it acknowledged) or `periodic`, an explicit opt-in for ' +
        'benchmarks (faster; a killed single node loses the acknowledged writes it had not marked ' +
        'synced yet, and the grids they were on move to a new generation: ' +
        '[operating.md](operating.md))',
    ),
  CASSANDRA_COMMITLOG_COMPRESSION: z
    .enum(['off', 'lz4'])
    .default('off')
    .describe(
      "local node's commit log compression: `off`, or `lz4`; with `periodic`, a compressed " +
        'commit log marks what it wrote only at each sync (10 s), so a killed node loses up to ' +
        'that much: the fault test of lost versions (test/faults/version-names.test.ts) runs so',
    ),
  CASSANDRA_PAXOS_VARIANT: z
    .enum(['v1', 'v2'])
    .default('v2')
    .describe('local node\'s `paxos_variant`: v2 (2 round trips per LWT) or v1 (4); `npm run bench:paxos` compares them'), // prettier-ignore
  REGRID_TEST_STORES: z
    .enum(['auto', 'containers', 'local'])
    .default('auto')
    .describe('integration tests: `auto` = testcontainers if a Docker engine answers, else local'),
};
