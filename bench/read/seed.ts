/**
 * Bench data in keyspace `regrid_bench`: a hot profile (300 posts, 20 overrides) and four
 * profiles of 10,000 posts with 0, 100, 1,000 and 10,000 overrides. Fixed profile IDs, so a
 * second run reuses what the first one wrote (seeding is skipped once a profile's version shows
 * it finished). Rows are written as the service writes them: bodies and grid rows first, then the
 * overrides through the real compare-and-set path (chunks of 250 rows per conditional batch).
 *
 * Post IDs are composed from past timestamps one minute apart, so keys have realistic gaps and
 * override keys (a random post's ID plus a small offset) never collide with a post ID.
 */
import { composeId } from '../../src/domain/ids.js';
import { createRng } from '../../tools/loadtest/rng.js';
import type { GridService } from '../../src/service/grid-service.js';

export const HOT_PROFILE = 7_100_000_001n;
export const OVERRIDE_COUNTS = [0, 100, 1_000, 10_000] as const;
export const POSTS_PER_OVERRIDE_PROFILE = 10_000;
const HOT_POSTS = 300;
const HOT_OVERRIDES = 20;
const CHUNK = 250;

export const overrideProfile = (overrides: number): bigint => 7_100_000_100n + BigInt(overrides);

/** Runs `task` over `items` with at most `width` in flight. */
async function pool<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

const chunksOf = (n: number) => Math.ceil(n / CHUNK);
/** Version a profile has once seeding finished: one bump for the posts, one per override chunk. */
const seededVersion = (overrides: number) => BigInt(1 + chunksOf(overrides));

async function seedProfile(
  service: GridService,
  profileId: bigint,
  posts: number,
  overrides: number,
  salt: number,
  log: (line: string) => void,
): Promise<void> {
  const head = await service.reader.readHead(profileId);
  if (head.version >= seededVersion(overrides)) return;
  log(`seeding profile ${profileId}: ${posts} posts, ${overrides} overrides`);
  const now = Date.now() - 86_400_000;
  const ids = Array.from({ length: posts }, (_, i) =>
    composeId({ ms: now - (i + 1) * 60_000, worker: 8191, sequence: salt }),
  );
  await pool(ids, 64, (postId) =>
    service.posts.insertPost(
      {
        postId,
        authorId: profileId,
        caption: `bench post ${postId}`,
        mediaUrl: `https://media.example/${postId}.jpg`,
        createdAt: new Date(),
        collaborators: [],
      },
      [profileId],
      undefined,
    ),
  );
  await service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: {},
    result: 0,
  }));

  // Overrides: distinct random posts, each keyed just above another random post.
  // Seeded (mulberry32), so every run seeds the same grid.
  const random = createRng(salt * 7919 + overrides).next;
  const chosen = new Set<bigint>();
  while (chosen.size < overrides) chosen.add(ids[Math.floor(random() * ids.length)]!);
  const upserts = [...chosen].map((postId) => ({
    postId,
    sortKey: ids[Math.floor(random() * ids.length)]! + 1n + BigInt(Math.floor(random() * 2 ** 22)),
    movedVersion: 1n,
  }));
  for (let i = 0; i < upserts.length; i += CHUNK) {
    const slice = upserts.slice(i, i + CHUNK);
    await service.writer.writeGrid(profileId, async () => ({
      kind: 'write',
      mutation: { upserts: slice },
      result: 0,
    }));
  }
}

export async function seedBench(service: GridService, log: (line: string) => void): Promise<void> {
  await seedProfile(service, HOT_PROFILE, HOT_POSTS, HOT_OVERRIDES, 1, log);
  for (const n of OVERRIDE_COUNTS) await seedOverrideProfile(service, n, log);
}

/**
 * One of the 10,000-post profiles (`overrideProfile(overrides)`), seeded exactly as `seedBench`
 * seeds it (same salt), so a quick bench and the full one share the data.
 */
export async function seedOverrideProfile(
  service: GridService,
  overrides: number,
  log: (line: string) => void,
): Promise<void> {
  const i = (OVERRIDE_COUNTS as readonly number[]).indexOf(overrides);
  const salt = 10 + (i === -1 ? OVERRIDE_COUNTS.length : i);
  await seedProfile(
    service,
    overrideProfile(overrides),
    POSTS_PER_OVERRIDE_PROFILE,
    overrides,
    salt,
    log,
  );
}
