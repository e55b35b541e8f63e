/**
 * The production entry (`node dist/main.js`, the Dockerfile's CMD): the service on the configured
 * stores (src/server.ts). It provisions nothing; in a development checkout `npm start` runs
 * tools/dev-start.ts, which finds or starts a local Cassandra and Redis first.
 */
import { loadConfig } from './config.js';
import { startServer } from './server.js';

try {
  await startServer(loadConfig());
} catch (err) {
  console.error('regrid failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
}
