/**
 * The reference feed consumer's repairs (examples/feed/consumer.ts, durable mode): the service
 * in-process (change log of 8 versions per grid: 8 slots, as many as a write group's writes, its stream under this run's own prefix on the
 * shared Redis), the feed's durable store in a PostgreSQL schema of its own, and the catch-up
 * route read through the app. Entries are taken out of the stream (XTRIM of this run's keys) so
 * the consumer sees a gap no pending entry will fill:
 * - a gap the change log still covers: caught up from GET …/grid/changes, no grid read;
 * - a gap older than the log (410 history_gone): the profile's posts from a grid read;
 * - a durable watermark ahead of the service's head (the grid's history went back) found by a
 *   recovery: a grid read, and the post only the bad state had leaves the timeline.
 * After each, the follower's timeline is exactly the grid.
 *
 * Skipped, saying why, when no PostgreSQL answers at PG_URL (default: the local server).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedConsumer } from '../../../examples/feed/consumer.js';
import { marksOf, readTimeline } from '../../../examples/feed/graph.js';
import { feedKeysOf, streamKeysOf } from '../../../examples/feed/keys.js';
import { FeedStore } from '../../../examples/feed/store.js';
import { issueToken } from '../../../src/http/auth.js';
import { postgresDown } from '../support/loadtest.js';
import { requestJson } from '../support/http.js';
import { openChanges, randomProfile, serviceToken, type ChangesHarness } from './harness.js';

const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PG_SCHEMA = `regrid_t_feed_${randomBytes(4).toString('hex')}`;
const JWT_SECRET = 'changes-tests-jwt-secret-0123456789';

const down = await postgresDown(PG_URL);
if (down) console.warn(`[feed-repair] skipped: PostgreSQL at ${PG_URL}: ${down}`);

let h: ChangesHarness;
let store: FeedStore;

beforeAll(async () => {
  if (down) return;
  h = await openChanges({ CHANGE_LOG_VERSIONS: '8', WRITE_GROUP_MAX_WRITES: '8' });
  store = await FeedStore.open(PG_URL, PG_SCHEMA);
});

afterAll(async () => {
  if (down) return;
  await store?.close();
  await h?.close();
  const sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  await sql.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await sql.end();
});

describe.skipIf(down !== null)('the feed repairs a profile from the catch-up route', () => {
  it('a gap in the log: caught up; older than the log (410): a grid read; a watermark ahead of the head: a grid read', async () => {
    const prefix = h.config.CHANGES_KEY_PREFIX;
    const keys = feedKeysOf(`${prefix}feed:`);
    const streams = streamKeysOf(prefix, h.config.CHANGES_STREAM_SHARDS);
    const consumer = new FeedConsumer(h.raw, keys, {
      streamKeys: streams,
      group: 'feed',
      consumer: 'a',
      count: 50,
      blockMs: 20,
      minIdleMs: 600_000,
      claimEveryMs: 600_000,
      gapTimeoutMs: 200,
      audit: false,
      store,
      api: (path) =>
        Promise.resolve(
          h.app.request(path, { headers: { authorization: `Bearer ${serviceToken()}` } }),
        ),
    });
    const profile = randomProfile();
    const follower = `${randomProfile()}`;
    const token = await issueToken(JWT_SECRET, profile);
    const posts: string[] = [];
    const write = async () => {
      // Creates, and a delete every third write once there are a few posts.
      if (posts.length > 3 && posts.length % 3 === 0) {
        const id = posts.shift()!;
        const r = await requestJson(h.app, 'DELETE', `/v1/me/posts/${id}`, {
          authorization: `Bearer ${token}`,
        });
        expect(r.status).toBe(200);
      }
      const r = await requestJson(
        h.app,
        'POST',
        '/v1/me/posts',
        { authorization: `Bearer ${token}` },
        JSON.stringify({ caption: 'repair' }),
      );
      expect(r.status).toBe(201);
      posts.push(r.json.post.id);
    };
    const head = async () => (await h.service.readHead(profile)).version;
    /** Polls until the follower's watermark is at the grid's head; then the timeline is the grid. */
    const settle = async () => {
      const want = await head();
      await h.waitEvents(profile, 1);
      const t0 = Date.now();
      while ((await marksOf(h.raw, keys, follower)).get(profile.toString())?.version !== want) {
        expect(Date.now() - t0, 'caught up within 20 s').toBeLessThan(20_000);
        await consumer.poll();
      }
      const grid = await requestJson(h.app, 'GET', `/v1/profiles/${profile}/grid?limit=100`, {});
      const onGrid = (grid.json.items as Array<{ id: string }>).map((i) => i.id).sort();
      const inFeed = (await readTimeline(h.raw, keys, follower)).map((t) => t.postId.toString());
      expect(inFeed.sort()).toEqual(onGrid);
      return onGrid;
    };
    /** `n` writes whose stream entries are then taken out (only this run's stream keys). */
    const lostWrites = async (n: number) => {
      for (let i = 0; i < n; i++) await write();
      await new Promise((r) => setTimeout(r, 300)); // the publishes are not awaited by writes
      for (const key of streams) await h.raw.xtrim(key, 'MAXLEN', 0);
    };

    await consumer.follow(follower, profile.toString());
    await consumer.start();
    for (let i = 0; i < 3; i++) await write();
    await settle();
    const first = { ...consumer.stats };
    expect(first.gridReads, 'the first event of an untracked profile: one grid read').toBe(1);

    // A gap the log covers (4 versions, log of 8): the route, no grid read.
    await lostWrites(4);
    await write();
    await settle();
    expect(consumer.stats.gridReads).toBe(first.gridReads);
    expect(consumer.stats.caughtUp - first.caughtUp).toBeGreaterThanOrEqual(4);

    // A gap older than the log (12 versions): 410, then a grid read.
    await lostWrites(12);
    await write();
    await settle();
    expect(consumer.stats.gridReads).toBe(first.gridReads + 1);

    // The durable watermark ahead of the head, with a post the grid never had: a recovery (the
    // feed's rebuilt key gone) finds the head behind it and reads the grid.
    const sql = new pg.Client({ connectionString: PG_URL });
    await sql.connect();
    await sql.query(`UPDATE ${PG_SCHEMA}.profiles SET version = version + 5 WHERE profile = $1`, [
      profile.toString(),
    ]);
    await sql.query(`INSERT INTO ${PG_SCHEMA}.profile_posts VALUES ($1, 4611686018427387904)`, [
      profile.toString(),
    ]);
    await sql.end();
    await h.raw.del(keys.rebuilt());
    await consumer.recover();
    expect(consumer.stats.gridReads).toBe(first.gridReads + 2);
    const onGrid = await settle();
    expect(onGrid).not.toContain('4611686018427387904');
    await write();
    await settle();
    await consumer.close();
  });
});
