/**
 * The local Cassandra node or ring that development and the tests run (config.ts; started by
 * tools/infra/, never by a production process), and the integration tests' choice of stores.
 */
import { z } from 'zod';
import { intFrom } from './kinds.js';

export const LocalNodeConfig = {
  REGRID_HOME: z.string().default('.regrid').describe('jars, data and logs of the local node'),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const LocalNodeTuning = {
  CASSANDRA_VERSION: z
    .string()
    .default('5.0.8')
    .describe('local node: `cassandra-all` version')
    .meta({ why: 'the version the project is tested on' }),
  CASSANDRA_STORAGE_PORT: intFrom(7000, 1, 65535)
    .describe("local node's internode port (loopback)")
    .meta({ why: 'private nodes pass their own (`npm run cassandra:up -- --storage-port`)' }),
  CASSANDRA_JMX_PORT: intFrom(7199, 1, 65535)
    .describe("local node's JMX (nodetool) port (loopback)")
    .meta({ why: 'private nodes pass their own (`npm run cassandra:up -- --jmx-port`)' }),
  CASSANDRA_HEAP: z
    .string()
    .regex(/^[0-9]+[MG]$/)
    .default('1G')
    .describe('local node: JVM heap')
    .meta({ why: 'suites and benchmarks pass their own' }),
  CASSANDRA_NODES: intFrom(1, 1, 9)
    .describe(
      'nodes `npm run cassandra:up` starts locally: 1, or a ring on 127.0.0.1…N ' +
        '(tools/infra/ring.ts); with N > 1, `npm start` and the CLI require that ring under ' +
        '`REGRID_HOME` and say what to run when it is not up ([cluster.md](cluster.md))',
    )
    .meta({
      why: '`npm run cassandra:up -- --nodes N` starts a ring; `npm start` and the CLI use a running ring by themselves',
    }),
  CASSANDRA_COMMITLOG_SYNC: z
    .enum(['periodic', 'group'])
    .default('group')
    .describe(
      "local node's commit log: `group` (synced every 15 ms before a write is acknowledged: a " +
        'killed node loses nothing it acknowledged) or `periodic`, an explicit opt-in for ' +
        'benchmarks (faster; a killed single node loses the acknowledged writes it had not marked ' +
        'synced yet, and the grids they were on move to a new generation: ' +
        '[operating.md](operating.md))',
    )
    .meta({ why: 'only benchmarks and the fault suite choose another mode' }),
  CASSANDRA_COMMITLOG_COMPRESSION: z
    .enum(['off', 'lz4'])
    .default('off')
    .describe(
      "local node's commit log compression: `off`, or `lz4`; with `periodic`, a compressed " +
        'commit log marks what it wrote only at each sync (10 s), so a killed node loses up to ' +
        'that much: the fault test of lost versions (test/faults/version-names.test.ts) runs so',
    )
    .meta({ why: 'only the fault suite turns it on' }),
  CASSANDRA_PAXOS_VARIANT: z
    .enum(['v1', 'v2'])
    .default('v2')
    .describe(
      "local node's `paxos_variant`: v2 (2 round trips per LWT) or v1 (4); `npm run bench:paxos` compares them",
    )
    .meta({ why: 'only `npm run bench:paxos` chooses v1' }),
  REGRID_TEST_STORES: z
    .enum(['auto', 'containers', 'local'])
    .default('auto')
    .describe('integration tests: `auto` = testcontainers if a Docker engine answers, else local')
    .meta({ why: 'the integration harness picks by itself' }),
};
