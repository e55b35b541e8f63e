/**
 * The embedded default: one real Apache Cassandra node on 127.0.0.1, assembled from Maven Central
 * (see maven-resolve.ts, cassandra-files.ts) and run as a detached JVM that outlives the process
 * that started it, so `npm start`, `npm test` and the CLIs all share it.
 *
 * `ensureCassandra(config)` is the entry point. With CASSANDRA_CONTACT_POINTS set it provisions
 * nothing. Otherwise it reuses whatever already answers CQL on the native port, and only then
 * resolves jars and launches CassandraDaemon in the foreground mode (no fork by Cassandra).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CassandraTarget } from '../../src/bootstrap.js';
import type { Config } from '../../src/config/config.js';
import {
  cassandraYaml,
  LOCAL_DC,
  logbackXml,
  nodeLayout,
  rackdcProperties,
  type LayoutConfig,
  type NodeLayout,
} from './cassandra-files.js';
import { daemonJavaArgs, inNetns } from './cassandra-jvm.js';
import { probeCql, waitForCql, type CqlEndpoint } from './cql-probe.js';
import { resolveCassandraJars } from './maven-resolve.js';
import { commandLineOf, findOnPath, isAlive, tailFile, tcpOpen } from './process-utils.js';
import { withLock } from './provision-lock.js';

type EnsureConfig = LayoutConfig &
  Pick<Config, 'CASSANDRA_CONTACT_POINTS' | 'CASSANDRA_LOCAL_DC' | 'CASSANDRA_HEAP'>;

/** The pidfile: facts about the node this project launched. */
export interface NodeState {
  readonly pid: number;
  readonly version: string;
  readonly nativePort: number;
  readonly jmxPort: number;
  readonly nodeDir: string;
  readonly startedAt: string;
}

export interface EnsureOptions {
  readonly log?: (line: string) => void;
  /** How long to wait for CQL after launching the JVM. */
  readonly startTimeoutMs?: number;
}

const defaultLog = (line: string) => console.log(`[cassandra] ${line}`);

export function readNodeState(layout: NodeLayout): NodeState | undefined {
  try {
    return JSON.parse(readFileSync(layout.stateFile, 'utf8')) as NodeState;
  } catch {
    return undefined;
  }
}

/** The PID from the pidfile if that process is still our Cassandra JVM (not a reused PID). */
export function liveNodePid(layout: NodeLayout): number | undefined {
  const state = readNodeState(layout);
  if (!state || !isAlive(state.pid)) return undefined;
  return commandLineOf(state.pid).includes('CassandraDaemon') ? state.pid : undefined;
}

export async function ensureCassandra(
  config: EnsureConfig,
  opts: EnsureOptions = {},
): Promise<CassandraTarget> {
  if (config.CASSANDRA_CONTACT_POINTS.length > 0) {
    return {
      contactPoints: config.CASSANDRA_CONTACT_POINTS,
      localDataCenter: config.CASSANDRA_LOCAL_DC,
      port: config.CASSANDRA_PORT,
      origin: 'external',
    };
  }
  const log = opts.log ?? defaultLog;
  const layout = nodeLayout(config);
  const ep: CqlEndpoint = {
    host: '127.0.0.1',
    port: config.CASSANDRA_PORT,
    localDataCenter: LOCAL_DC,
  };
  const target = (origin: CassandraTarget['origin'], releaseVersion: string): CassandraTarget => ({
    contactPoints: [`127.0.0.1:${config.CASSANDRA_PORT}`],
    localDataCenter: LOCAL_DC,
    port: config.CASSANDRA_PORT,
    origin,
    releaseVersion,
    ...(liveNodePid(layout) ? { pid: liveNodePid(layout) } : {}),
  });

  const running = await probeCql(ep);
  if (running) {
    log(`reusing the Cassandra ${running} node answering on ${ep.host}:${ep.port}`);
    return target('reused', running);
  }

  return withLock(
    layout.lockFile,
    async () => {
      // Someone may have finished starting it while we waited for the lock.
      const again = await probeCql(ep);
      if (again) return target('reused', again);
      const pid = liveNodePid(layout) ?? (await launch(layout, config, log));
      const version = await waitUntilReady(layout, ep, pid, opts.startTimeoutMs ?? 480_000, log);
      return target('started', version);
    },
    async () => {
      const v = await probeCql(ep);
      return v ? target('reused', v) : undefined;
    },
  );
}

/** Writes the node's config and starts its JVM detached; resolves to its PID (not yet ready). */
export async function launch(
  layout: NodeLayout,
  config: Pick<Config, 'CASSANDRA_HEAP'>,
  log: (l: string) => void,
): Promise<number> {
  if (!findOnPath('java'))
    throw new Error('java is not on PATH: Cassandra 5.0 needs Java 11 or 17');
  // A busy port otherwise surfaces only deep in the node's log, after a slow start.
  for (const [name, port] of [
    ['CASSANDRA_PORT', layout.nativePort],
    ['CASSANDRA_STORAGE_PORT', layout.storagePort],
    ['CASSANDRA_JMX_PORT', layout.jmxPort],
  ] as const) {
    if (await tcpOpen(layout.address, port, 300)) {
      throw new Error(`${layout.address}:${port} (${name}) is already in use by another process`);
    }
  }
  const { jars } = await resolveCassandraJars(layout.version, layout.versionDir, log);
  for (const dir of [
    layout.confDir,
    layout.dataDir,
    layout.commitlogDir,
    layout.hintsDir,
    layout.savedCachesDir,
    layout.cdcDir,
    layout.logDir,
    layout.triggersDir,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(layout.confDir, 'cassandra.yaml'), cassandraYaml(layout));
  writeFileSync(join(layout.confDir, 'logback.xml'), logbackXml(layout));
  if (layout.dc) writeFileSync(join(layout.confDir, 'cassandra-rackdc.properties'), rackdcProperties(layout.dc)); // prettier-ignore

  const out = openSync(join(layout.logDir, 'stdout.log'), 'a');
  const err = openSync(join(layout.logDir, 'stderr.log'), 'a');
  // detached: own session, so Ctrl-C in the terminal or the end of a test run leaves it running.
  // `ip netns exec` execs java in place (same PID), so the pidfile names the JVM either way.
  const [cmd, ...args] = inNetns(layout.netns, [
    'java',
    ...daemonJavaArgs(layout, jars, config.CASSANDRA_HEAP),
  ]);
  const child = spawn(cmd!, args, {
    cwd: layout.nodeDir,
    detached: true,
    stdio: ['ignore', out, err],
  });
  closeSync(out);
  closeSync(err);
  if (child.pid === undefined) throw new Error('could not spawn java');
  child.unref();
  const state: NodeState = {
    pid: child.pid,
    version: layout.version,
    nativePort: layout.nativePort,
    jmxPort: layout.jmxPort,
    nodeDir: layout.nodeDir,
    startedAt: new Date().toISOString(),
  };
  writeFileSync(layout.stateFile, JSON.stringify(state, null, 2) + '\n');
  log(
    `launched Cassandra ${layout.version} (pid ${child.pid}, heap ${config.CASSANDRA_HEAP}); logs in ${layout.logDir}`,
  );
  return child.pid;
}

export async function waitUntilReady(
  layout: NodeLayout,
  ep: CqlEndpoint,
  pid: number,
  deadlineMs: number,
  log: (l: string) => void,
): Promise<string> {
  const started = Date.now();
  const systemLog = join(layout.logDir, 'system.log');
  const failure = (why: string) => {
    // The first ERROR lines usually name the cause; the tail shows where start-up stopped.
    const errors = tailFile(systemLog, 100_000)
      .split('\n')
      .filter((l) => l.startsWith('ERROR'))
      .slice(0, 5)
      .join('\n');
    return new Error(
      `${why}\n--- errors in ${systemLog} ---\n${errors || '(none)'}\n` +
        `--- tail of ${systemLog} ---\n${tailFile(systemLog, 25)}\n` +
        `--- tail of stderr.log ---\n${tailFile(join(layout.logDir, 'stderr.log'), 10)}`,
    );
  };
  const version = await waitForCql(ep, {
    deadlineMs,
    check: () => {
      if (!isAlive(pid)) throw failure(`Cassandra (pid ${pid}) exited during start-up`);
    },
    onTick: (ms) => log(`  … waiting for CQL on ${ep.host}:${ep.port} (${Math.round(ms / 1000)}s)`),
  });
  if (!version)
    throw failure(`Cassandra did not answer CQL within ${Math.round(deadlineMs / 1000)}s`);
  log(
    `Cassandra ${version} is ready on ${ep.host}:${ep.port} after ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  return version;
}
