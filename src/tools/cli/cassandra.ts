/**
 * `npm run cassandra:up|down|status` — manage the embedded local Cassandra node.
 * `up` leaves the node running in the background (it is shared by npm start and the tests).
 */
import { loadConfig } from '../../config.js';
import { ensureCassandra } from '../infra/embedded-cassandra.js';
import { cassandraStatus, stopCassandra } from '../infra/cassandra-control.js';

async function main(cmd: string | undefined): Promise<number> {
  const config = loadConfig();
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
      console.error('usage: tsx src/cli/cassandra.ts up|down|status');
      return 2;
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
