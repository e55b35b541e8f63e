/**
 * `regrid cassandra up|down|status|stop-node|start-node` (`npm run cassandra:*`): the local
 * single node and the local ring under REGRID_HOME, both visible to status and down. Whatever
 * `up` starts keeps running in the background (shared by npm start and the tests) until `down`.
 */
import { loadConfig, type Config } from '../../src/config/config.js';
import { stopCassandra } from '../infra/cassandra-control.js';
import { nodeLayout } from '../infra/cassandra-files.js';
import { ensureCassandra, liveNodePid } from '../infra/embedded-cassandra.js';
import { localStatus, statusExit } from '../infra/local-nodes.js';
import { ringNodes, ringSize, stopRing } from '../infra/ring.js';
import { ringUp, startNodeCommand, stopNodeCommand } from './cassandra-ring.js';
import { dcDown, dcStatus, dcStatusLines } from './cmd-regions.js';
import type { Parsed } from '../../src/cli/command-specs.js';
import { EXIT, UsageError } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/regrid-commands.js';

export async function run({ values, positionals }: Parsed, io: Io): Promise<number> {
  // A private node's other ports are flags: they are not environment variables (docs/configuration.md).
  const config = loadConfig(process.env, {
    CASSANDRA_STORAGE_PORT: values['storage-port'] as string | undefined,
    CASSANDRA_JMX_PORT: values['jmx-port'] as string | undefined,
  });
  const [sub, arg, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  if (sub !== 'stop-node' && sub !== 'start-node' && arg !== undefined) {
    throw new UsageError(`unexpected argument '${arg}'`);
  }
  switch (sub) {
    case 'up': {
      const nodes = values['nodes'] === undefined ? config.CASSANDRA_NODES : count(values['nodes']);
      if (nodes > 1) return ringUp(config, nodes, values['stop-single'] === true, io);
      return singleUp(config, io);
    }
    case 'down':
      return down(config, values['node'], io);
    case 'status': {
      const status = await localStatus(config);
      if (values['json']) {
        const dc = await dcStatus(config);
        io.out(JSON.stringify(dc ? { ...status, dc_ring: dc } : status));
      } else {
        io.out(`home ${status.home}`);
        for (const n of status.nodes) {
          io.out(
            `${n.node.padEnd(7)} ${`${n.address}:${n.cql_port}`.padEnd(16)} ${n.state.padEnd(8)} ` +
              `pid ${String(n.pid ?? '-').padEnd(8)} jmx ${n.jmx_port}${n.note ? `  (${n.note})` : ''}`,
          );
        }
        for (const line of await dcStatusLines(config)) io.out(line);
      }
      return statusExit(status.nodes);
    }
    case 'stop-node':
      return stopNodeCommand(config, ringIndex(config, arg), io);
    case 'start-node':
      return startNodeCommand(config, ringIndex(config, arg), io);
    default:
      throw new UsageError(
        sub === undefined
          ? 'which one: up, down, status, stop-node N, start-node N'
          : `no '${sub}'`,
      );
  }
}

function count(text: unknown): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new UsageError('--nodes takes 1..9');
  return n;
}

function ringIndex(config: Config, text: string | undefined): number {
  const n = Number(text);
  const size = ringSize(config);
  if (text === undefined || !Number.isInteger(n) || n < 1 || n > Math.max(size, 1)) {
    throw new UsageError(
      size > 0 ? `name a ring node: 1..${size}` : 'no ring exists under REGRID_HOME',
    );
  }
  return n;
}

async function singleUp(config: Config, io: Io): Promise<number> {
  const running = ringNodes(config, ringSize(config)).filter((n) => liveNodePid(n.layout));
  if (running.length > 0 && config.CASSANDRA_CONTACT_POINTS.length === 0) {
    // Ring node 1 answers where the single node would: "reusing" it would hide the ring.
    io.out(
      `the local ring runs under REGRID_HOME (${running.length} of ${ringSize(config)} nodes): ` +
        'npm start uses it; `npm run cassandra:down -- --node ring` stops it',
    );
    return EXIT.ok;
  }
  const t0 = Date.now();
  const target = await ensureCassandra(config, { log: (l) => io.err(`[cassandra] ${l}`) });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (target.origin === 'external') {
    io.out(
      `CASSANDRA_CONTACT_POINTS is set (${target.contactPoints.join(', ')}): nothing to start`,
    );
  } else {
    io.out(
      `Cassandra ${target.releaseVersion} ${target.origin} at ${target.contactPoints.join(', ')} ` +
        `(dc ${target.localDataCenter}${target.pid ? `, pid ${target.pid}` : ''}) in ${secs}s`,
    );
  }
  return EXIT.ok;
}

async function down(config: Config, which: unknown, io: Io): Promise<number> {
  if (which !== undefined && which !== 'single' && which !== 'ring') {
    throw new UsageError('--node takes single or ring');
  }
  let stopped = 0;
  if (which !== 'ring') {
    const res = await stopCassandra(config);
    if (res.stopped) stopped++;
    io.out(`single node: ${res.detail}`);
  }
  if (which !== 'single' && ringSize(config) > 0) {
    const lines = await stopRing(config);
    stopped += lines.length;
    for (const line of lines) io.out(`ring ${line}`);
    if (lines.length === 0) io.out('ring: no node of it runs');
  }
  if (which !== 'single') {
    const lines = await dcDown(config);
    stopped += lines.filter((l) => l.endsWith('stopped')).length;
    for (const line of lines) io.out(`dc ring ${line}`);
  }
  if (stopped === 0) io.out(`nothing ran under REGRID_HOME (${nodeLayout(config).home})`);
  return EXIT.ok;
}
