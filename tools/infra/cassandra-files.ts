/**
 * What the Cassandra binary tarball would have supplied, generated for one loopback test node:
 * the folder layout under REGRID_HOME, `cassandra.yaml` and `logback.xml` (JVM flags:
 * cassandra-jvm.ts).
 *
 * Layout (all under REGRID_HOME, git-ignored):
 *   cassandra/node.json                  pid + facts of the running node (the "pidfile")
 *   cassandra/<version>/lib/*.jar        resolved by Maven (maven-resolve.ts)
 *   cassandra/<version>/node/conf/       cassandra.yaml, logback.xml (rewritten on every start)
 *   cassandra/<version>/node/{data,commitlog,hints,saved_caches,cdc_raw,triggers}/
 *   cassandra/<version>/node/logs/       system.log (logback), stdout.log, stderr.log
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../../src/config/config.js';

export interface NodeLayout {
  readonly home: string;
  readonly version: string;
  readonly versionDir: string;
  readonly libDir: string;
  readonly nodeDir: string;
  readonly confDir: string;
  readonly dataDir: string;
  readonly commitlogDir: string;
  readonly hintsDir: string;
  readonly savedCachesDir: string;
  readonly cdcDir: string;
  readonly logDir: string;
  readonly triggersDir: string;
  readonly stateFile: string;
  readonly lockFile: string;
  /** Loopback ports: CQL, internode, JMX. */
  readonly nativePort: number;
  readonly storagePort: number;
  readonly jmxPort: number;
  /** `group` (the default: nothing acknowledged is lost) or `periodic` (benchmarks only). */
  readonly commitlogSync: 'periodic' | 'group';
  /** LZ4 commit log segments (with `periodic`: sync markers only at each sync, every 10 s). */
  readonly commitlogCompression: 'off' | 'lz4';
  /** `paxos_variant` in cassandra.yaml (v2 unless CASSANDRA_PAXOS_VARIANT says otherwise). */
  readonly paxosVariant: 'v1' | 'v2';
  /** Loopback address this node listens on (a ring puts node i on 127.0.0.i). */
  readonly address: string;
  /** `host:storagePort` of the seed (the ring's first node; itself for a lone node). */
  readonly seeds: string;
  /** This node's one token (Murmur3), pre-computed so nodes can start without allocation. */
  readonly initialToken: string;
  /** Client-to-node TLS only (plain CQL refused); unset = plain CQL, as every other node here. */
  readonly clientEncryption?: ClientEncryption;
}

/**
 * `client_encryption_options` of a TLS-only node (the TLS fault test): Java keystores as
 * scripts/make-test-certs.sh makes them with keytool.
 */
export interface ClientEncryption {
  readonly keystore: string;
  readonly keystorePassword: string;
  /** With a truststore, clients must present a certificate it vouches for. */
  readonly truststore?: string;
  readonly truststorePassword?: string;
}

function clientEncryptionYaml(tls: ClientEncryption | undefined): string {
  if (!tls) return '';
  const q = (s: string) => JSON.stringify(s);
  const lines = [
    '',
    '# TLS only: `optional: false` refuses plain CQL on the native port.',
    'client_encryption_options:',
    '  enabled: true',
    '  optional: false',
    `  keystore: ${q(tls.keystore)}`,
    `  keystore_password: ${q(tls.keystorePassword)}`,
  ];
  if (tls.truststore) {
    lines.push(
      '  require_client_auth: true',
      `  truststore: ${q(tls.truststore)}`,
      `  truststore_password: ${q(tls.truststorePassword ?? '')}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** SimpleSnitch puts every node in this data center. */
export const LOCAL_DC = 'datacenter1';

/** REGRID_HOME made absolute (relative values are taken from the working directory, the repo root). */
export function regridHome(config: Pick<Config, 'REGRID_HOME'>): string {
  const h = config.REGRID_HOME;
  return isAbsolute(h) ? h : resolve(process.cwd(), h);
}

export type LayoutConfig = Pick<
  Config,
  | 'REGRID_HOME'
  | 'CASSANDRA_VERSION'
  | 'CASSANDRA_PORT'
  | 'CASSANDRA_STORAGE_PORT'
  | 'CASSANDRA_JMX_PORT'
> &
  Partial<
    Pick<
      Config,
      'CASSANDRA_COMMITLOG_SYNC' | 'CASSANDRA_COMMITLOG_COMPRESSION' | 'CASSANDRA_PAXOS_VARIANT'
    >
  >;

/** A node's own folders under its `nodeDir` (one node, or one node of a ring). */
export function nodeFolders(nodeDir: string) {
  return {
    nodeDir,
    confDir: join(nodeDir, 'conf'),
    dataDir: join(nodeDir, 'data'),
    commitlogDir: join(nodeDir, 'commitlog'),
    hintsDir: join(nodeDir, 'hints'),
    savedCachesDir: join(nodeDir, 'saved_caches'),
    cdcDir: join(nodeDir, 'cdc_raw'),
    logDir: join(nodeDir, 'logs'),
    triggersDir: join(nodeDir, 'triggers'),
  };
}

export function nodeLayout(config: LayoutConfig): NodeLayout {
  const home = regridHome(config);
  const root = join(home, 'cassandra');
  const versionDir = join(root, config.CASSANDRA_VERSION);
  const nodeDir = join(versionDir, 'node');
  return {
    home,
    version: config.CASSANDRA_VERSION,
    versionDir,
    libDir: join(versionDir, 'lib'),
    ...nodeFolders(nodeDir),
    stateFile: join(root, 'node.json'),
    lockFile: join(root, 'provision.lock'),
    nativePort: config.CASSANDRA_PORT,
    storagePort: config.CASSANDRA_STORAGE_PORT,
    jmxPort: config.CASSANDRA_JMX_PORT,
    commitlogSync: config.CASSANDRA_COMMITLOG_SYNC ?? 'group',
    commitlogCompression: config.CASSANDRA_COMMITLOG_COMPRESSION ?? 'off',
    paxosVariant: config.CASSANDRA_PAXOS_VARIANT ?? 'v2',
    address: '127.0.0.1',
    seeds: `127.0.0.1:${config.CASSANDRA_STORAGE_PORT}`,
    initialToken: '0',
  };
}

/**
 * Commit log durability. `group` (the default) syncs every few milliseconds before acknowledging:
 * nothing acknowledged is lost to a crash or a SIGKILL. `periodic` (an explicit opt-in for
 * benchmarks) acknowledges a write before it is synced: replay reads only what the last sync
 * marked, so a single node (RF 1) can lose up to one period of acknowledged writes.
 */
function commitlogSyncYaml(mode: 'periodic' | 'group'): string {
  return mode === 'group'
    ? 'commitlog_sync: group\ncommitlog_sync_group_window: 15ms'
    : 'commitlog_sync: periodic\ncommitlog_sync_period: 10000ms';
}

/** Compressed segments are marked only at each sync (periodic: a kill loses up to a period). */
function commitlogCompressionYaml(mode: 'off' | 'lz4'): string {
  return mode === 'lz4' ? 'commitlog_compression:\n  - class_name: LZ4Compressor\n' : '';
}

/**
 * cassandra.yaml for a single loopback node. Keys use the 5.0 unit-suffixed names; anything not
 * listed keeps Cassandra's built-in default. Sizes are small because the node shares 2 cores
 * and a ≤1G heap with the service and the tests.
 */
export function cassandraYaml(layout: NodeLayout): string {
  const q = (s: string) => JSON.stringify(s); // JSON strings are valid YAML scalars
  return `# Generated by regrid (tools/infra/cassandra-files.ts) on every start; edits are overwritten.
cluster_name: 'regrid-local'
num_tokens: 1
initial_token: ${layout.initialToken}
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "${layout.seeds}"
listen_address: ${layout.address}
rpc_address: ${layout.address}
storage_port: ${layout.storagePort}
start_native_transport: true
native_transport_port: ${layout.nativePort}

data_file_directories:
  - ${q(layout.dataDir)}
commitlog_directory: ${q(layout.commitlogDir)}
hints_directory: ${q(layout.hintsDir)}
saved_caches_directory: ${q(layout.savedCachesDir)}
cdc_raw_directory: ${q(layout.cdcDir)}

${commitlogSyncYaml(layout.commitlogSync)}
commitlog_segment_size: 16MiB
${commitlogCompressionYaml(layout.commitlogCompression)}
# Paxos v2: two round trips per LWT write instead of four (not in the shipped yaml); v1 only to
# measure the difference (CASSANDRA_PAXOS_VARIANT, npm run bench:paxos).
paxos_variant: ${layout.paxosVariant}
# A fresh node has nothing older to stay compatible with.
storage_compatibility_mode: NONE

# Test node: no snapshot on every TRUNCATE/DROP (they fill the disk).
auto_snapshot: false
snapshot_before_compaction: false

authenticator:
  class_name: AllowAllAuthenticator
authorizer:
  class_name: AllowAllAuthorizer

# Small-node sizing.
concurrent_reads: 8
concurrent_writes: 16
concurrent_counter_writes: 8
concurrent_compactors: 1
memtable_heap_space: 128MiB
memtable_offheap_space: 128MiB
key_cache_size: 16MiB
counter_cache_size: 8MiB
# A ring node that was down gets the writes it missed replayed from its peers' hints (for up to
# max_hint_window, 3 h); a single node has no peers and never stores any.
hinted_handoff_enabled: true

tombstone_warn_threshold: 1000
tombstone_failure_threshold: 100000
${clientEncryptionYaml(layout.clientEncryption)}`;
}

/** logback.xml: everything to a rolling file in the node's log folder; console only for errors. */
export function logbackXml(layout: NodeLayout): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by regrid (tools/infra/cassandra-files.ts). -->
<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${layout.logDir}/system.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>${layout.logDir}/system.log.%d{yyyy-MM-dd}.%i.zip</fileNamePattern>
      <maxFileSize>20MB</maxFileSize>
      <maxHistory>3</maxHistory>
      <totalSizeCap>200MB</totalSizeCap>
    </rollingPolicy>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter">
      <level>ERROR</level>
    </filter>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <logger name="org.apache.cassandra" level="INFO"/>
  <root level="INFO">
    <appender-ref ref="FILE"/>
    <appender-ref ref="STDOUT"/>
  </root>
</configuration>
`;
}
