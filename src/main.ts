/**
 * The production entry (`node dist/main.js`, the Dockerfile's CMD): the service on the configured
 * stores (src/server.ts). It provisions nothing; in a development checkout `npm start` runs
 * tools/dev-start.ts, which finds or starts a local Cassandra and Redis first. A failure to start
 * exits as `regrid serve` does: the CLI's code and one line (cli/exit-codes.ts, docs/cli.md).
 */
import { failureOf } from './cli/exit-codes.js';
import { loadConfig } from './config/config.js';
import { startServer } from './server.js';

try {
  await startServer(loadConfig());
} catch (err) {
  const { code, line } = failureOf(err);
  console.error(`regrid failed to start: ${line}`);
  process.exit(code);
}
