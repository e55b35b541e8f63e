/**
 * Cassandra's own accounting for the LOCAL embedded node: `nodetool` (over JMX on 127.0.0.1:7199)
 * and `sstablemetadata`, both run from the jars Maven resolved (same classpath as the daemon).
 *
 * Only for the node regrid provisions: the data directory is read from REGRID_HOME. For a remote
 * cluster (CASSANDRA_CONTACT_POINTS) or a container, use that cluster's own `nodetool` /
 * `sstablemetadata` (e.g. `docker compose exec cassandra nodetool tablestats ks.table`).
 * Each call starts a short-lived JVM (~2 s); use them in tests and reports, not on hot paths.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/config.js';
import { nodeLayout, type LayoutConfig, type NodeLayout } from './cassandra-files.js';
import { inNetns, toolJvmFlags } from './cassandra-jvm.js';
import { cachedJars } from './maven-resolve.js';

const run = promisify(execFile);

type ToolConfig = LayoutConfig;

/** Tools log WARN+ to stderr only (as Cassandra's logback-tools.xml does). */
const TOOLS_LOGBACK = `<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{HH:mm:ss.SSS} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
`;

function toolArgs(layout: NodeLayout, mainClass: string): string[] {
  const resolved = cachedJars(layout.versionDir);
  if (!resolved) {
    throw new Error(
      `Cassandra ${layout.version} jars are not resolved yet: run npm run cassandra:up`,
    );
  }
  const toolsHome = join(layout.versionDir, 'tools');
  mkdirSync(toolsHome, { recursive: true });
  const logback = join(toolsHome, 'logback-tools.xml');
  writeFileSync(logback, TOOLS_LOGBACK);
  return [
    '-Xmx256m',
    // Short-lived JVMs: C1 only and a serial GC start noticeably faster on 2 cores.
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    ...toolJvmFlags(),
    `-Dlogback.configurationFile=file://${logback}`,
    // nodetool appends its history under ${user.home}/.cassandra: keep that inside REGRID_HOME.
    `-Duser.home=${toolsHome}`,
    // sstablemetadata initialises Cassandra's config in "tool" mode: point it at the node's yaml.
    `-Dcassandra.config=file://${join(layout.confDir, 'cassandra.yaml')}`,
    `-Dcassandra.storagedir=${layout.nodeDir}`,
    '-cp',
    resolved.jars.join(':'),
    mainClass,
  ];
}

async function runTool(
  config: ToolConfig,
  mainClass: string,
  args: readonly string[],
): Promise<string> {
  return runToolOn(nodeLayout(config), mainClass, args);
}

async function runToolOn(
  layout: NodeLayout,
  mainClass: string,
  args: readonly string[],
): Promise<string> {
  try {
    // A node in a network namespace has its JMX on that namespace's 127.0.0.1.
    const [cmd, ...argv] = inNetns(layout.netns, ['java', ...toolArgs(layout, mainClass), ...args]);
    const { stdout } = await run(cmd!, argv, {
      maxBuffer: 32 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string; stdout?: string };
    const detail = (e.stderr || e.stdout || e.message).trim().split('\n').slice(0, 8).join('\n');
    throw new Error(`${mainClass.split('.').pop()} ${args.join(' ')} failed:\n${detail}`);
  }
}

/** `nodetool -h 127.0.0.1 -p 7199 <args>` against the local node; resolves to stdout. */
export function runNodetool(
  args: readonly string[],
  config: ToolConfig = loadConfig(),
): Promise<string> {
  return runTool(config, 'org.apache.cassandra.tools.NodeTool', [
    '-h',
    '127.0.0.1',
    '-p',
    String(nodeLayout(config).jmxPort),
    ...args,
  ]);
}

/** `nodetool <args>` against one node of a ring (its own JMX port on 127.0.0.1). */
export function runNodetoolAt(layout: NodeLayout, args: readonly string[]): Promise<string> {
  return runToolOn(layout, 'org.apache.cassandra.tools.NodeTool', [
    '-h',
    '127.0.0.1',
    '-p',
    String(layout.jmxPort),
    ...args,
  ]);
}

/** Flushes a table's memtable to SSTables (so sstablemetadata and SSTable counts see the data). */
export async function flushTable(
  keyspace: string,
  table: string,
  config?: ToolConfig,
): Promise<void> {
  await runNodetool(['flush', keyspace, table], config);
}

export interface TableStats {
  readonly sstableCount: number;
  readonly averageTombstonesPerSlice: number;
  readonly maximumTombstonesPerSlice: number;
  readonly averageLiveCellsPerSlice: number;
  readonly maximumLiveCellsPerSlice: number;
  readonly localReadCount: number;
  readonly localWriteCount: number;
  readonly partitionsEstimate: number;
  readonly droppedMutations: number;
  /** Every "Label: value" line of the table's section, verbatim. */
  readonly raw: Readonly<Record<string, string>>;
}

/** Parses the table section of `nodetool tablestats` ("NaN" reads as 0: no reads yet). */
export function parseTableStats(stdout: string, table: string): TableStats {
  const raw: Record<string, string> = {};
  let inTable = false;
  for (const line of stdout.split('\n')) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, key = '', value = ''] = m;
    if (key.trim() === 'Table' || key.trim() === 'Table (index)') inTable = value.trim() === table;
    else if (inTable) raw[key.trim()] = value.trim();
  }
  if (Object.keys(raw).length === 0)
    throw new Error(`table '${table}' not found in tablestats output`);
  const num = (prefix: string): number => {
    const key = Object.keys(raw).find((k) => k.startsWith(prefix));
    const v = key === undefined ? NaN : Number.parseFloat(raw[key] ?? '');
    return Number.isFinite(v) ? v : 0;
  };
  return {
    sstableCount: num('SSTable count'),
    averageTombstonesPerSlice: num('Average tombstones per slice'),
    maximumTombstonesPerSlice: num('Maximum tombstones per slice'),
    averageLiveCellsPerSlice: num('Average live cells per slice'),
    maximumLiveCellsPerSlice: num('Maximum live cells per slice'),
    localReadCount: num('Local read count'),
    localWriteCount: num('Local write count'),
    partitionsEstimate: num('Number of partitions (estimate)'),
    droppedMutations: num('Dropped Mutations'),
    raw,
  };
}

/** `nodetool tablestats ks.table`, parsed. Tombstone figures cover reads of the last 5 minutes. */
export async function tableStats(
  keyspace: string,
  table: string,
  config?: ToolConfig,
): Promise<TableStats> {
  return parseTableStats(await runNodetool(['tablestats', `${keyspace}.${table}`], config), table);
}

/** The Data.db files of a table's live SSTables on the local node (after a flush). */
export function sstableDataFiles(
  keyspace: string,
  table: string,
  config: ToolConfig = loadConfig(),
): string[] {
  const ksDir = join(nodeLayout(config).dataDir, keyspace);
  if (!existsSync(ksDir)) return [];
  // Table folders are "<table>-<id>"; a dropped and re-created table leaves an older folder.
  return readdirSync(ksDir)
    .filter((d) => d.startsWith(`${table}-`))
    .flatMap((d) =>
      readdirSync(join(ksDir, d))
        .filter((f) => f.endsWith('-Data.db'))
        .map((f) => join(ksDir, d, f)),
    );
}

export interface SSTableTombstoneInfo {
  readonly file: string;
  readonly estimatedDroppableTombstones: number;
  /** Sum of the "Estimated tombstone drop times" histogram: cells/rows/ranges carrying a deletion time. */
  readonly tombstoneDropTimeCount: number;
  readonly totalRows?: number;
}

/** Parses one SSTable's section of sstablemetadata's output. */
export function parseSSTableMetadata(file: string, stdout: string): SSTableTombstoneInfo {
  const droppable = /Estimated droppable tombstones:\s*([0-9.eE+-]+)/.exec(stdout);
  const rows = /totalRows:\s*([0-9]+)/.exec(stdout);
  // The histogram: a header line, then rows "<drop time> (<date>) | <count> (<pct>) OOO", then
  // "Percentiles". Each row counts deletion markers (cells, rows, ranges) that expire then.
  let dropTimes = 0;
  const at = stdout.indexOf('Estimated tombstone drop times:');
  if (at >= 0) {
    for (const line of stdout.slice(at).split('\n').slice(1)) {
      if (/Drop Time/.test(line)) continue;
      const m = /^\s*([0-9]+)\s*(?:\([^)]*\))?\s*\|\s*([0-9]+)/.exec(line);
      if (!m) break;
      dropTimes += Number(m[2]);
    }
  }
  return {
    file,
    estimatedDroppableTombstones: droppable ? Number(droppable[1]) : 0,
    tombstoneDropTimeCount: dropTimes,
    ...(rows ? { totalRows: Number(rows[1]) } : {}),
  };
}

/**
 * sstablemetadata for the live SSTables of a table (flush first), in one JVM. Reads the files
 * directly, so it works while the node runs; SSTables that compaction removed are skipped.
 */
export async function sstableTombstones(
  keyspace: string,
  table: string,
  config: ToolConfig = loadConfig(),
): Promise<SSTableTombstoneInfo[]> {
  const files = sstableDataFiles(keyspace, table, config).filter((f) => existsSync(f));
  if (files.length === 0) return [];
  const stdout = await runTool(config, 'org.apache.cassandra.tools.SSTableMetadataViewer', files);
  // One section per file, each starting with "SSTable: <path without -Data.db>".
  return stdout
    .split(/^(?=SSTable: )/m)
    .filter((section) => section.startsWith('SSTable: '))
    .map((section) => {
      const base = section.slice('SSTable: '.length, section.indexOf('\n')).trim();
      return parseSSTableMetadata(`${base}-Data.db`, section);
    });
}
