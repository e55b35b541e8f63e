/**
 * The JVM command lines of the local node and of the offline tools (nodetool, sstablemetadata):
 * Java 17 module flags from the 5.0 branch's conf/jvm17-server.options, heap, classpath.
 */
import { join } from 'node:path';
import type { NodeLayout } from './cassandra-files.js';

/** Module flags from the 5.0 branch's conf/jvm17-server.options (Java 17 needs them). */
const JAVA17_MODULE_FLAGS = [
  ...[
    'java.base/jdk.internal.misc',
    'java.management.rmi/com.sun.jmx.remote.internal.rmi',
    'java.rmi/sun.rmi.registry',
    'java.rmi/sun.rmi.server',
    'java.sql/java.sql',
    'java.base/java.lang.ref',
    'jdk.unsupported/sun.misc',
    'jdk.compiler/com.sun.tools.javac.file',
    'jdk.attach/sun.tools.attach',
  ].map((p) => `--add-exports=${p}=ALL-UNNAMED`),
  ...[
    'java.base/java.lang.module',
    'java.base/jdk.internal.loader',
    'java.base/jdk.internal.ref',
    'java.base/jdk.internal.reflect',
    'java.base/jdk.internal.math',
    'java.base/jdk.internal.module',
    'java.base/jdk.internal.util.jar',
    'jdk.management/com.sun.management.internal',
    'java.base/sun.nio.ch',
    'java.base/java.io',
    'java.base/java.lang.reflect',
    'jdk.compiler/com.sun.tools.javac',
    'java.base/java.lang',
    'java.base/java.util',
  ].map((p) => `--add-opens=${p}=ALL-UNNAMED`),
];

/** Flags shared by the daemon and the offline tools (nodetool, sstablemetadata). */
export function toolJvmFlags(): string[] {
  return ['-Djava.net.preferIPv4Stack=true', ...JAVA17_MODULE_FLAGS];
}

/** Full JVM command line (flags + classpath + main class) for the daemon. */
export function daemonJavaArgs(
  layout: NodeLayout,
  jars: readonly string[],
  heap: string,
): string[] {
  const jamm = jars.find((j) => /\/jamm-[0-9.]+\.jar$/.test(j));
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-Xss256k',
    // From jvm17-server.options (G1 section).
    '-XX:+UseG1GC',
    '-XX:+ParallelRefProcEnabled',
    '-XX:MaxTenuringThreshold=1',
    '-XX:G1HeapRegionSize=16m',
    '-XX:MaxGCPauseMillis=300',
    // From jvm-server.options (AlwaysPreTouch left out: a test node should start fast).
    '-XX:+UseTLAB',
    '-XX:+ResizeTLAB',
    '-XX:+UseNUMA',
    '-XX:+PerfDisableSharedMem',
    '-XX:+HeapDumpOnOutOfMemoryError',
    `-XX:HeapDumpPath=${layout.nodeDir}`,
    '-XX:+CrashOnOutOfMemoryError',
    '-Djdk.attach.allowAttachSelf=true',
    '-Dio.netty.tryReflectionSetAccessible=true',
    '-Dio.netty.allocator.useCacheForAllThreads=true',
    '-Dio.netty.allocator.maxOrder=11',
    ...toolJvmFlags(),
    // jamm measures object sizes for memtable accounting; 5.0 falls back to Unsafe without the
    // agent, but the start script always passes it, so we do too.
    ...(jamm ? [`-javaagent:${jamm}`] : []),
    // Where and how.
    '-Dcassandra-foreground=yes',
    `-Dcassandra.config=file://${join(layout.confDir, 'cassandra.yaml')}`,
    `-Dcassandra.storagedir=${layout.nodeDir}`,
    `-Dcassandra.logdir=${layout.logDir}`,
    `-Dlogback.configurationFile=file://${join(layout.confDir, 'logback.xml')}`,
    `-Dcassandra.jmx.local.port=${layout.jmxPort}`,
    `-Dcassandra.triggers_dir=${layout.triggersDir}`,
    // Fast single-node start (as testcontainers does): no gossip settling, one fixed token.
    '-Dcassandra.skip_wait_for_gossip_to_settle=0',
    `-Dcassandra.initial_token=${layout.initialToken}`,
    `-Dcassandra.ring_delay_ms=${layout.ringDelayMs ?? 100}`,
    '-Dcassandra.superuser_setup_delay_ms=0',
    '-cp',
    [layout.confDir, ...jars].join(':'),
    'org.apache.cassandra.service.CassandraDaemon',
  ];
}

/** `argv` run inside network namespace `netns` (`ip netns exec`), or as it is without one. */
export function inNetns(netns: string | undefined, argv: readonly string[]): string[] {
  return netns ? ['ip', 'netns', 'exec', netns, ...argv] : [...argv];
}
