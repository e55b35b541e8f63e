/**
 * Seeds the population (population.ts) into its own keyspace, the way bench/read/seed.ts seeds
 * the read benchmark: bodies and `grid_posts` rows with plain writes (PostsStore.insertPost),
 * one compare-and-set that names the grid's state, then the overrides through the real
 * compare-and-set path, 250 rows per conditional batch. IDs are fixed, and a finished grid is
 * noted in the tool's own table `production_seed` (this keyspace only): the second run of the
 * same shape seeds nothing. Every step is idempotent (the same rows again), so a step the shared
 * node timed out is simply sent again, and an unfinished grid is seeded again from its start.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../../src/config/config.js';
import { flagsOf } from '../../../src/service/flags.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { createRng } from '../rng.js';
import { postIdOf, profilePlan, type PopulationShape, type ProfilePlan } from './population.js';

const CHUNK = 250;
const PROFILES_AT_ONCE = 8;
const POSTS_AT_ONCE = 24;

const ATTEMPTS = 6;
const MARKS = `CREATE TABLE IF NOT EXISTS production_seed (profile_id bigint PRIMARY KEY, shape text)`;
const shapeOf = (p: ProfilePlan, seed: number) => `${p.posts}:${p.overrides}:${seed}`;

async function retried<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}

async function pool<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

async function seedProfile(
  client: Client,
  service: GridService,
  p: ProfilePlan,
  seed: number,
): Promise<boolean> {
  const mark = await client.execute(
    'SELECT shape FROM production_seed WHERE profile_id = ?',
    [p.profileId],
    { prepare: true },
  );
  if (mark.first()?.get('shape') === shapeOf(p, seed)) return false;
  const ids = Array.from({ length: p.posts }, (_, i) => postIdOf(p.index, i, p.posts));
  await pool(ids, POSTS_AT_ONCE, (postId) =>
    retried(() =>
      service.posts.insertPost(
        {
          postId,
          authorId: p.profileId,
          caption: `production-shaped post ${postId}`,
          mediaUrl: `https://media.example/${postId}.jpg`,
          createdAt: new Date(),
          collaborators: [],
        },
        [p.profileId],
        undefined,
      ),
    ),
  );
  const head = await retried(() => service.reader.readHead(p.profileId));
  if (head.version === 0n) {
    await retried(() =>
      service.writer.writeGrid(p.profileId, async () => ({
        kind: 'write',
        mutation: {},
        result: 0,
      })),
    );
  }
  // Every post moved: each keyed just above another random post (seeded, the same every run).
  const random = createRng(seed * 7_919 + p.index).next;
  const upserts = ids.slice(0, p.overrides).map((postId) => ({
    postId,
    sortKey: ids[Math.floor(random() * ids.length)]! + 1n + BigInt(Math.floor(random() * 2 ** 22)),
    movedVersion: 1n,
  }));
  for (let i = 0; i < upserts.length; i += CHUNK) {
    const slice = upserts.slice(i, i + CHUNK);
    await retried(() =>
      service.writer.writeGrid(p.profileId, async () => ({
        kind: 'write',
        mutation: { upserts: slice },
        result: 0,
      })),
    );
  }
  await client.execute(
    'INSERT INTO production_seed (profile_id, shape) VALUES (?, ?)',
    [p.profileId, shapeOf(p, seed)],
    { prepare: true },
  );
  return true;
}

export interface SeedReport {
  readonly profiles: number;
  readonly posts: number;
  readonly overrides: number;
  readonly seededNow: number;
  readonly seconds: number;
}

export async function seedPopulation(
  client: Client,
  config: Config,
  shape: PopulationShape,
  log: (line: string) => void,
): Promise<{ plans: ProfilePlan[]; report: SeedReport }> {
  const t0 = performance.now();
  const service = new GridService({
    cql: cqlOf(client),
    config: config,
    flags: flagsOf(cqlOf(client), config),
    ids: {
      next: () => {
        throw new Error('seeding writes fixed IDs');
      },
    },
    cursorSecret: 'seeding-reads-no-cursors',
  });
  await client.execute(MARKS);
  const plans = Array.from({ length: shape.profiles }, (_, i) => profilePlan(shape, i));
  let seededNow = 0;
  let checked = 0;
  await pool(plans, PROFILES_AT_ONCE, async (p) => {
    if (await seedProfile(client, service, p, shape.seed)) seededNow++;
    if (++checked % 500 === 0) {
      log(`[seed] ${checked}/${plans.length} profiles checked, ${seededNow} seeded now`);
    }
  });
  const report: SeedReport = {
    profiles: plans.length,
    posts: plans.reduce((s, p) => s + p.posts, 0),
    overrides: plans.reduce((s, p) => s + p.overrides, 0),
    seededNow,
    seconds: (performance.now() - t0) / 1000,
  };
  return { plans, report };
}
