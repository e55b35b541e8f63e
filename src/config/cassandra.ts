/**
 * Where Cassandra is and how this process talks to it (config.ts): contact points, keyspace,
 * consistency and driver timeouts. The local node's own settings (development) are local.ts.
 */
import { z } from 'zod';
import { csv, intFrom } from './kinds.js';
import { Replication } from './replication.js';

export const CassandraConfig = {
  CASSANDRA_CONTACT_POINTS: csv().describe(
    'hosts of an existing cluster; empty = `npm start` and the development CLI use a local ' +
      'ring or provision/reuse the local node (development only; required in production)',
  ),
  CASSANDRA_PORT: intFrom(9042, 1, 65535).describe('CQL port'),
  CASSANDRA_LOCAL_DC: z.string().default('datacenter1').describe('local data center'),
  CASSANDRA_KEYSPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/)
    .default('regrid')
    .describe('keyspace'),
  CASSANDRA_REPLICATION: Replication.meta({
    description: 'the keyspace replication `regrid migrate` creates',
    allowed: '`SimpleStrategy:N` or `NetworkTopologyStrategy:dc1=3,dc2=3`',
  }),
  CASSANDRA_USERNAME: z.string().optional().describe('plain-text auth: user'),
  CASSANDRA_PASSWORD: z.string().optional().describe('plain-text auth: password'),
  CASSANDRA_TLS: z
    .stringbool()
    .default(false)
    .describe(
      "client-to-node encryption: `true` = connect with TLS (the nodes' " +
        '`client_encryption_options`); the chain is always verified',
    ),
  CASSANDRA_TLS_CA_FILE: z.string().min(1).optional().meta({
    allowed: 'a file path',
    description: "PEM CA bundle the nodes' certificates must chain to",
    unset: "Node's built-in CAs",
  }),
  CASSANDRA_TLS_CERT_FILE: z
    .string()
    .min(1)
    .optional()
    .meta({
      allowed: 'a file path',
      description:
        'PEM client certificate, for nodes that require one (`require_client_auth`); with ' +
        '`CASSANDRA_TLS_KEY_FILE`',
      unset: 'no client certificate',
    }),
  CASSANDRA_TLS_KEY_FILE: z.string().min(1).optional().meta({
    description: 'PEM key of that certificate (unencrypted)',
    allowed: 'a file path',
  }),
  CASSANDRA_TLS_SERVERNAME: z
    .string()
    .min(1)
    .optional()
    .meta({
      allowed: 'a host name, or `*`',
      description:
        "the name checked against every node's certificate (and sent as SNI) instead of its " +
        'address; `*` checks the chain only (no name)',
      unset: "each node's IP address",
    }),
  CASSANDRA_CONSISTENCY: z
    .enum(['localQuorum', 'quorum', 'one', 'localOne', 'all'])
    .default('localQuorum')
    .describe(
      'commit consistency of grid writes; their Paxos round follows it (`quorum` and `all`: `serial`, the others: `localSerial`)',
    ),
  MIGRATE_ON_START: z
    .stringbool()
    .default(false)
    .describe(
      'production: `true` = the server applies the migrations at start-up; otherwise it ' +
        'refuses an unmigrated or partly migrated keyspace (`regrid migrate` applies them). ' +
        'Development always applies them',
    ),
};

/** Constants, not read from the environment (config.ts `loadConfig`'s second argument sets them). */
export const CassandraTuning = {
  CASSANDRA_TLS_VERIFY_HOSTNAME: z
    .stringbool()
    .default(true)
    .describe(
      "check that each node's certificate names the address connected to (the driver connects " +
        'to IP addresses: the certificates need IP SANs) or `CASSANDRA_TLS_SERVERNAME`; ' +
        '`false` checks the chain only',
    )
    .meta({ why: 'merged into `CASSANDRA_TLS_SERVERNAME` (`*` = check the chain only)' }),
  CASSANDRA_SERIAL_CONSISTENCY: z
    .enum(['localSerial', 'serial'])
    .optional()
    .meta({
      description: 'Paxos consistency of grid writes',
      unset: '`serial` with `quorum` or `all`, else `localSerial`',
    })
    .meta({
      why: 'merged into `CASSANDRA_CONSISTENCY`: `quorum` and `all` use `serial`, the others `localSerial`',
    }),
  CASSANDRA_REQUEST_TIMEOUT_MS: intFrom(2_000, 100)
    .describe(
      'driver read timeout per statement (`socketOptions.readTimeout`); keep it at or under ' +
        '`REQUEST_DEADLINE_WRITE_MS`, so a stalled statement is not held long after its request ' +
        'was answered',
    )
    .meta({ why: 'follows the write deadline; tests shorten it with the deadline' }),
  CASSANDRA_RECONNECT_BASE_MS: intFrom(100, 10)
    .describe('reconnection after a node is lost: exponential from this base…')
    .meta({ why: 'a driver detail; tests shorten it to see a restarted node sooner' }),
  CASSANDRA_RECONNECT_MAX_MS: intFrom(1_000, 10)
    .describe("…capped at this (the driver's default caps at 10 minutes)")
    .meta({ why: 'a driver detail; tests shorten it to see a restarted node sooner' }),
  CASSANDRA_CONNECTIONS_PER_HOST: intFrom(2, 1, 32)
    .describe('connections per local host; each carries at most 2,048 requests at once')
    .meta({ why: 'a driver detail; each connection already carries 2,048 requests' }),
};
