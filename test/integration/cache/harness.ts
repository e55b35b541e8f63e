/**
 * Real stores for the cache tests: the migrated `regrid_test` keyspace on the local Cassandra
 * (global setup), the shared Redis (or a private one), and the project's own reader and writer,
 * so the cache is exercised against exactly the read and write paths the service uses.
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../../src/config/config.js';
import { createGridCache } from '../../../src/cache/grid-cache.js';
import type { GridCacheSettings } from '../../../src/cache/grid-cache.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import type { IdGenerator } from '../../../src/domain/ids.js';
import type { GridEntry } from '../../../src/domain/merge.js';
import { consistencyOf, cqlOf } from '../../../src/store/cassandra.js';
import { GridStore } from '../../../src/store/grid-store.js';
import { MembershipStore } from '../../../src/store/membership-store.js';
import { PostsStore } from '../../../src/store/posts-store.js';
import { CassandraGridReader } from '../../../src/store/grid-reader.js';
import type { MinVersion } from '../../../src/domain/grid-version.js';
import { readGridPage } from '../../../src/service/read/read-page.js';
import { etagOf } from '../../../src/service/read/rendered-read.js';
import { GridWriter, writerSettingsOf } from '../../../src/service/write-line/write-line.js';
import type { WriterHooks } from '../../../src/service/write-line/write-line.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

export interface Stores {
  readonly config: Config;
  readonly client: Client;
  readonly grid: GridStore;
  readonly posts: PostsStore;
  readonly reader: CassandraGridReader;
  readonly ids: IdGenerator;
  writer(hooks?: WriterHooks): GridWriter;
  close(): Promise<void>;
}

export async function openStores(env: Record<string, string> = {}): Promise<Stores> {
  // A generous Redis timeout: these tests are about correctness, and a 2-core machine running
  // Cassandra and vitest can stall a reply past the production 150 ms (tripping the breaker).
  const config = testConfig({ REDIS_TIMEOUT_MS: '2000', ...env });
  const client = await connectTestClient(config);
  const cql = cqlOf(client);
  const consistency = consistencyOf(config);
  const grid = new GridStore(cql, consistency);
  const posts = new PostsStore(cql, consistency);
  const membership = new MembershipStore(cql, consistency);
  return {
    config,
    client,
    grid,
    posts,
    reader: new CassandraGridReader(grid, posts, membership, consistency),
    // Worker numbers far from the service's, so test IDs never collide with theirs.
    ids: idsFromWorkers(8000, 150),
    writer: (hooks = {}) => new GridWriter(grid, membership, writerSettingsOf(config), hooks),
    close: () => client.shutdown(),
  };
}

/** A fresh profile ID per test (no two tests share a partition or a cache key). */
export const freshProfile = (s: Stores): bigint => s.ids.next();

/** Creates `n` posts on the profile's grid (oldest first) and bumps the version once. */
export async function seedPosts(s: Stores, profileId: bigint, n: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) ids.push(s.ids.next());
  await Promise.all(
    ids.map((postId, i) =>
      s.posts.insertPost(
        {
          postId,
          authorId: profileId,
          caption: `post ${i}`,
          mediaUrl: `https://media.example/${postId}.jpg`,
          createdAt: new Date(),
          collaborators: [],
        },
        [profileId],
        undefined,
      ),
    ),
  );
  await bump(s.writer(), profileId);
  return ids;
}

/** A version bump that changes nothing else. */
export const bump = (writer: GridWriter, profileId: bigint) =>
  writer.writeGrid(profileId, async () => ({ kind: 'write', mutation: {}, result: null }));

/** Moves `postId` to the top with a fresh key (a real override through the CAS path). */
export const moveToTop = (s: Stores, writer: GridWriter, profileId: bigint, postId: bigint) =>
  writer.writeGrid(profileId, async ({ nextVersion }) => ({
    kind: 'write',
    mutation: { upserts: [{ postId, sortKey: s.ids.next(), movedVersion: nextVersion }] },
    result: null,
  }));

/** Just (postId, key): merged entries may carry extra fields (moved version). */
export const pairs = (entries: readonly GridEntry[]): GridEntry[] =>
  entries.map(({ postId, key }) => ({ postId, key }));

/** The truth for the current state: head and first entries straight from Cassandra. */
export async function truth(s: Stores, profileId: bigint, n = 48) {
  const head = await s.reader.readHead(profileId);
  const entries = pairs(await s.reader.readFirstEntries(profileId, head, n));
  return { head, entries };
}

export function cacheSettings(config: Config, over: Partial<GridCacheSettings> = {}) {
  return {
    pageTtlS: config.CACHE_PAGE_TTL_S,
    summaryTtlS: config.CACHE_SUMMARY_TTL_S,
    leaseMs: config.CACHE_LEASE_MS,
    cursorKeyId: 'test',
    ...over,
  } satisfies GridCacheSettings;
}

/** What a cached first page of the tests holds: its state and its entries' post IDs. */
export interface TestBody {
  readonly version: string;
  readonly ids: string[];
}

/**
 * The grid cache over the project's own page read (read-page.ts on the Cassandra reader), first
 * pages of `limit` rendered as `TestBody`.
 */
export function openCache(s: Stores, guard: RedisGuard, over: Partial<GridCacheSettings> = {}) {
  const cache = createGridCache(guard, cacheSettings(s.config, over));
  const readFirst = async (profileId: bigint, minVersion?: MinVersion, limit = 24) => {
    const r = await cache.read(profileId, limit, minVersion, async () => {
      const page = await readGridPage(s.reader, 'test-cursor-secret-0123456789abcdef', {
        profileId,
        limit,
        minVersion,
      });
      const body = JSON.stringify({
        version: String(page.version),
        ids: page.entries.map((e) => String(e.postId)),
      });
      const { generation, version } = page;
      return { page: { generation, version, body, etag: etagOf(body) }, keep: true };
    });
    return { ...r, ids: (JSON.parse(r.body) as TestBody).ids.map(BigInt) };
  };
  return Object.assign(cache, { readFirst });
}

export const sharedGuard = (config: Config) => createRedisGuard(config, { log: () => {} });

/** A gate a test opens by hand: `wait()` blocks until `open()`. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let reached!: () => void;
  const arrived = new Promise<void>((r) => (reached = r));
  const wait = async () => {
    reached();
    await opened;
  };
  let passed = false;
  return {
    /** Called by the code under test. */
    wait,
    /** As `wait`, but only the first caller stops here; later calls pass straight through. */
    waitOnce: async () => {
      if (passed) return;
      passed = true;
      await wait();
    },
    /** Resolves once the code under test is waiting at the gate. */
    arrived,
    open,
  };
}
