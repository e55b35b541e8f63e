/**
 * The demo profile: a fixed profile ID that `npm start` prints a token for in development, and
 * that `npm run seed:demo` fills with a few hundred posts spread over the past, one second to
 * one day apart (so a newcomer has something to reorder, and keys have realistic gaps).
 */
import { composeId, MAX_WORKER } from '../domain/ids.js';
import type { GridService } from './grid-service.js';

export const DEMO_PROFILE_ID = 4242n;

export interface SeedOptions {
  readonly posts?: number;
  readonly now?: number;
  /** Deterministic jitter source (tests); Math.random by default. */
  readonly random?: () => number;
}

/**
 * Writes `posts` posts with IDs composed from past timestamps (newest first, gaps of 1 s to
 * 1 day) straight into the tables (seeding only), then bumps the grid version once, counting them.
 */
export async function seedDemoGrid(
  service: GridService,
  profileId: bigint = DEMO_PROFILE_ID,
  options: SeedOptions = {},
): Promise<{ created: number; version: bigint }> {
  const count = options.posts ?? 300;
  const random = options.random ?? Math.random;
  let ms = (options.now ?? Date.now()) - 60_000;
  const worker = MAX_WORKER; // reserved for seeding: never collides with a live process's IDs in practice
  for (let i = 0; i < count; i++) {
    ms -= 1000 + Math.floor(random() * (86_400_000 - 1000));
    const postId = composeId({ ms, worker, sequence: i % 1024 });
    await service.posts.insertPost(
      {
        postId,
        authorId: profileId,
        caption: `Demo post #${count - i}`,
        mediaUrl: `https://picsum.photos/seed/${postId}/600/600`,
        createdAt: new Date(ms),
        collaborators: [],
      },
      [profileId],
      undefined,
    );
  }
  // Many rows written directly (seeding only), one bump that counts them.
  const out = await service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: { statics: { postCount: await service.store.countGridRows(profileId) } },
    result: null,
  }));
  return { created: count, version: out.version };
}
