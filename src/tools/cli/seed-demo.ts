/**
 * `npm run seed:demo [-- --posts N --profile ID]` — fill a demo profile with posts spread
 * between one second and one day apart in the past.
 */
import { parseArgs } from 'node:util';
import { openCassandra, openIdGenerator } from '../../bootstrap.js';
import { loadConfig } from '../../config.js';
import { parseId } from '../../domain/ids.js';
import { DEMO_PROFILE_ID, seedDemoGrid } from '../../service/demo.js';
import { GridService } from '../../service/grid-service.js';

const { values } = parseArgs({
  options: { posts: { type: 'string', default: '300' }, profile: { type: 'string' } },
});
const posts = Number(values.posts);
if (!Number.isInteger(posts) || posts < 1 || posts > 10_000) {
  console.error('--posts must be an integer in 1..10000');
  process.exit(2);
}
const profileId = values.profile ? parseId(values.profile, 'profile') : DEMO_PROFILE_ID;

const config = loadConfig();
const session = await openCassandra(config);
const { ids, lease } = await openIdGenerator(session.cql, config, () => process.exit(1));
try {
  const service = new GridService({
    cql: session.cql,
    config,
    ids,
    cursorSecret: 'seed-only-unused',
  });
  const out = await seedDemoGrid(service, profileId, { posts });
  console.log(`seeded ${out.created} posts on profile ${profileId}; grid_version ${out.version}`);
} finally {
  await lease.release();
  await session.client.shutdown();
}
