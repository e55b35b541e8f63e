/**
 * A second service process for the two-process flags test: the real GridService and HTTP app
 * over the same `regrid_test` keyspace (connection facts inherited through the environment),
 * no Redis, on an ephemeral port. Prints `PORT <n>` once listening; exits on SIGTERM.
 */
import { serve } from '@hono/node-server';
import { createApp } from '../../../src/http/app.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

const config = testConfig({ PORT: '0' });
const client = await connectTestClient(config);
const service = new GridService({
  cql: cqlOf(client),
  config,
  ids: idsFromWorkers(7740, 10),
  cursorSecret: process.env.CHILD_CURSOR_SECRET ?? 'flags-child-cursor-secret',
});
const app = createApp({
  service,
  jwtSecret: 'flags-child-jwt-secret-0123456789',
  bodyLimitBytes: config.BODY_LIMIT_BYTES,
  readiness: async () => ({ ok: true }) as never,
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`PORT ${info.port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void client.shutdown().finally(() => process.exit(0));
});
