/**
 * `npm run cassandra:up|down|status` — manage the embedded local Cassandra node, or a local ring
 * (`up -- --nodes 3`, or CASSANDRA_NODES=3; `status -- --json`; `stop-node -- N` / `start-node
 * -- N` for fault drills). Whatever `up` starts keeps running in the background (it is shared by
 * npm start and the tests) until `down`.
 */
import { loadConfig } from '../../config.js';
import { ensureCassandra } from '../infra/embedded-cassandra.js';
import { cassandraStatus, stopCassandra } from '../infra/cassandra-control.js';
import { ringSize } from '../infra/ring.js';
import {
  ringDown,
  ringStatusCommand,
  ringUp,
  startNodeCommand,
  stopNodeCommand,
} from './cassandra-ring.js';

async function main(cmd: string | undefined, args: readonly string[]): Promise<number> {
  const config = loadConfig();
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const nodes = Number(flag('--nodes') ?? config.CASSANDRA_NODES);
  const ring = nodes > 1 || ringSize(config) > 0;
  if (cmd === 'stop-node') return stopNodeCommand(config, Number(args[0]));
  if (cmd === 'start-node') return startNodeCommand(config, Number(args[0]));
  if (ring && cmd === 'up') return ringUp(config, nodes > 1 ? nodes : ringSize(config));
  if (ring && cmd === 'down') return ringDown(config);
  if (ring && cmd === 'status') return ringStatusCommand(config, args.includes('--json'));
  switch (cmd) {
    case 'up': {
      const t0 = Date.now();
      const target = await ensureCassandra(config);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      if (target.origin === 'external') {
        console.log(
          `CASSANDRA_CONTACT_POINTS is set (${target.contactPoints.join(', ')}): nothing to provision`,
        );
      } else {
        console.log(
          `Cassandra ${target.releaseVersion} ${target.origin} at ${target.contactPoints.join(', ')} ` +
            `(dc ${target.localDataCenter}${target.pid ? `, pid ${target.pid}` : ''}) in ${secs}s`,
        );
      }
      return 0;
    }
    case 'down': {
      const res = await stopCassandra(config);
      console.log(res.detail);
      return 0;
    }
    case 'status': {
      const s = await cassandraStatus(config);
      console.log(
        s.answering
          ? `up: Cassandra ${s.releaseVersion} answers CQL on 127.0.0.1:${config.CASSANDRA_PORT}` +
              (s.pid
                ? ` (pid ${s.pid}, started by regrid at ${s.state?.startedAt})`
                : ' (not started by regrid)')
          : `down: nothing answers CQL on 127.0.0.1:${config.CASSANDRA_PORT}` +
              (s.pid ? ` (pid ${s.pid} is alive: still starting?)` : ''),
      );
      console.log(
        `home: ${s.layout.versionDir} (jars ${s.jarsResolved ? 'resolved' : 'not resolved yet'})`,
      );
      console.log(`logs: ${s.layout.logDir}`);
      return s.answering ? 0 : 1;
    }
    default:
      console.error(
        'usage: tsx src/tools/cli/cassandra.ts up [--nodes N]|down|status [--json]|stop-node N|start-node N',
      );
      return 2;
  }
}

main(process.argv[2], process.argv.slice(3)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
