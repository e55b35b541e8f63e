/**
 * A child process for the kill-and-resume test (import.test.ts): imports the source table named
 * by argv (keyspace, table, checkpoint path, posts/s) into the test keyspace, slowly, until it
 * is killed. Prints one line per finished slice.
 */
import { GridService } from '../../../src/service/grid-service.js';
import { cqlSource } from '../../../src/service/import/sources.js';
import { runImport } from '../../../src/service/import/run-import.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { SourceTable } from '../../../src/store/source-table.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

const [keyspace, table, checkpointPath, rate] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const config = testConfig();
const client = await connectTestClient(config);
const service = new GridService({
  cql: cqlOf(client),
  config,
  ids: idsFromWorkers(8100, 10),
  cursorSecret: 'import-child-cursor-secret',
});
const source = new SourceTable(cqlOf(client), consistencyOf(config), keyspace, table, {
  profile: 'profile_id',
  post: 'post_id',
  created: 'created_at',
  caption: 'caption',
  media: 'media_url',
});
let slices = 0;
await runImport((p, posts) => service.platform.importChunk(p, posts), cqlSource(source, 16), {
  parallel: 2,
  ratePerS: Number(rate),
  checkpointPath,
  onProgress: (t) => {
    if (t.slicesDone > slices) console.log(`slices done ${(slices = t.slicesDone)}`);
  },
});
console.log('finished');
await client.shutdown();
