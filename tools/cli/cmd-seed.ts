/**
 * `regrid seed [--posts N] [--profile ID]` (`npm run seed:demo`): fill a demo profile with posts
 * spread between one second and one day apart in the past.
 */
import { openCassandra, openIdGenerator } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config/config.js';
import { parseId } from '../../src/domain/ids.js';
import { DEMO_PROFILE_ID, seedDemoGrid } from '../../src/service/demo.js';
import { GridService } from '../../src/service/grid-service.js';
import { findLocalCassandra } from '../infra/dev-stores.js';
import type { Parsed } from '../../src/cli/command-specs.js';
import { EXIT, UsageError } from '../../src/cli/exit-codes.js';
import type { Io } from '../../src/cli/regrid-commands.js';

export async function run({ values, positionals }: Parsed, io: Io): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const posts = Number(values['posts']);
  if (!Number.isInteger(posts) || posts < 1 || posts > 10_000) {
    throw new UsageError('--posts must be an integer in 1..10000');
  }
  const profile = values['profile'] as string | undefined;
  const profileId = profile ? parseId(profile, 'profile') : DEMO_PROFILE_ID;
  const log = (line: string) => io.err(line);
  const { config, target } = await findLocalCassandra(loadConfig(), log, log);
  const session = await openCassandra(config, log, 'apply', target);
  try {
    const { ids, lease } = await openIdGenerator(session.cql, config, (worker, reason) => {
      io.err(`lost worker lease ${worker}: ${reason}`);
      process.exit(EXIT.unavailable);
    });
    try {
      const service = new GridService({ cql: session.cql, config, ids, cursorSecret: 'seed-only-unused' }); // prettier-ignore
      const out = await seedDemoGrid(service, profileId, { posts });
      io.out(`seeded ${out.created} posts on profile ${profileId}; grid_version ${out.version}`);
      return EXIT.ok;
    } finally {
      await lease.release();
    }
  } finally {
    await session.client.shutdown();
  }
}
