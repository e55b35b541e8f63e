/**
 * The reference feed consumer (examples/feed/) against the real Redis: its Lua scripts held to
 * the pure model, then the whole consumer group over shard streams this test XADDs per the change
 * stream contract (docs/integration.md), with duplicates, out-of-order redelivery, a consumer
 * that applied entries and died before XACK, and one killed (SIGKILL) mid-batch whose pending
 * entries the others claim. Every key lives under this run's own prefix; nothing else is touched.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { FeedConsumer, type FeedStats } from '../../../examples/feed/consumer.js';
import {
  feedMember,
  feedScore,
  planOf,
  verdictOf,
  type ChangeEvent,
} from '../../../examples/feed/decide.js';
import { follow, marksOf, readTimeline, unfollow } from '../../../examples/feed/graph.js';
import { feedKeysOf, streamKeysOf } from '../../../examples/feed/keys.js';
import { FeedModel } from '../../../examples/feed/model.js';
import { applyForFollower } from '../../../examples/feed/scripts.js';
import { buildWorkload, deliveries, prng, type Workload } from '../../unit/feed/workload.js';
import { testConfig } from '../support/stores.js';
import { rawRedis } from '../support/tls-clients.js';

const ctx = inject('integration');
const PREFIX = `regrid_t_feed:${process.pid}-${Date.now()}:`;
const SHARDS = 4;
const STREAMS = streamKeysOf(PREFIX, SHARDS);
const keys = feedKeysOf(`${PREFIX}feed:`);
let redis: Redis;

beforeAll(() => {
  redis = rawRedis(testConfig(), {}, ctx.redisUrl);
});

afterAll(async () => {
  // Only this run's keys (SCAN on the run's own prefix), never a flush.
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (found.length > 0) await redis.del(...found);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
});

const shardOf = (profile: string) => STREAMS[Number(BigInt(profile) % BigInt(SHARDS))]!;
let nextFollower = 500_000;
const freshFollower = () => String((nextFollower += 1));

/** Per profile: the posts on its grid at the end, and how often each post entered it. */
function truthOf(w: Workload) {
  const finals = new Map<string, ReadonlySet<string>>();
  const entered = new Map<string, Map<string, number>>();
  for (const [profile, steps] of w.steps) {
    finals.set(profile, steps.at(-1)?.gridAfter ?? new Set());
    const counts = new Map<string, number>();
    let before = new Set<string>();
    for (const { gridAfter } of steps) {
      for (const post of gridAfter)
        if (!before.has(post)) counts.set(post, (counts.get(post) ?? 0) + 1);
      before = new Set(gridAfter);
    }
    entered.set(profile, counts);
  }
  return { finals, entered };
}

describe('feed scripts (real Redis)', () => {
  it('decide like verdictOf for every watermark and event', async () => {
    const mark = fc.record({
      generation: fc.bigInt({ min: 1n, max: 3n }),
      version: fc.bigInt({ min: 0n, max: 6n }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.option(mark, { nil: undefined }),
        mark,
        fc.boolean(),
        async (stored, at, force) => {
          const f = freshFollower();
          await follow(redis, keys, f, '77', stored);
          const event = {
            profile: '77',
            generation: `${at.generation}`,
            version: `${at.version}`,
            op: 'none' as const,
            posts: [],
          };
          const result = await applyForFollower(redis, keys, f, event, false, force);
          const found = verdictOf(stored, at);
          const verdict = found === 'gap' && force ? 'forced' : found;
          expect(result.verdict).toBe(verdict);
          const after = (await marksOf(redis, keys, f)).get('77');
          expect(after).toEqual(verdict === 'apply' || verdict === 'forced' ? at : stored);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('change timelines exactly as the model does, step by step, duplicates and gaps included', async () => {
    for (const seed of [1, 2, 3]) {
      const rand = prng(seed);
      const profiles = ['301', '302', '303'];
      const w = buildWorkload(rand, profiles, 150);
      const model = new FeedModel();
      const followers = [freshFollower(), freshFollower()];
      for (const f of followers) {
        for (const p of profiles.filter((_, i) => f.endsWith('1') || i !== 1)) {
          model.follow(f, p, { generation: 1n, version: 0n });
          await follow(redis, keys, f, p, { generation: 1n, version: 0n });
        }
      }
      // The shuffled, duplicated deliveries, then every event once more in order (a gap left
      // by the first pass is filled by the second).
      const clean = [...w.steps.values()].flatMap((s) => s.map((x) => x.event));
      for (const e of [...deliveries(rand, w, 0.3), ...clean]) {
        for (const f of model.followersOf(e.profile_id)) {
          const fromRedis = await applyForFollower(redis, keys, f, planOf(e), true);
          expect(fromRedis, `${f} ${e.profile_id} v${e.version} ${e.kind}`).toEqual(
            model.apply(f, e),
          );
        }
      }
      for (const f of followers) {
        const timeline = await readTimeline(redis, keys, f);
        expect(timeline.map((t) => [feedMember(t.postId), t.score]).sort()).toEqual(
          [...model.timeline(f)].sort(),
        );
        const inserts = await redis.hgetall(keys.inserts(f));
        const modelInserts = [...model.inserts]
          .filter(([k]) => k.startsWith(`${f}|`))
          .map(([k, n]) => [k.slice(f.length + 1), String(n)]);
        expect(Object.entries(inserts).sort()).toEqual(modelInserts.sort());
      }
      // An unfollow takes out that grid's posts, except those another followed grid holds.
      const [f] = followers as [string];
      model.unfollow(f, '301');
      const removed = await unfollow(redis, keys, f, '301');
      const left = await readTimeline(redis, keys, f);
      expect(left.map((t) => [feedMember(t.postId), t.score]).sort()).toEqual(
        [...model.timeline(f)].sort(),
      );
      expect(removed).toBeGreaterThan(0);
    }
  });
});

describe('feed consumer group over the shard streams (real Redis)', () => {
  it('applies over a gap nobody can fill once the gap timeout ran out', async () => {
    const f = freshFollower();
    const profile = '990001';
    const [gapStream] = streamKeysOf(`${PREFIX}gap:`, 1) as [string];
    await follow(redis, keys, f, profile, { generation: 1n, version: 0n });
    const at = (version: number, post: bigint) => ({
      profile_id: profile,
      version: String(version),
      generation: '1',
      at: new Date().toISOString(),
      kind: 'created',
      post_ids: [post.toString()],
    });
    const [p1, p3] = [4611686018427387904n, 4611686018427388904n];
    // Version 2 never comes (the write side's log no longer held it when it rolled forward).
    for (const e of [at(1, p1), at(3, p3)]) {
      await redis.xadd(gapStream, '*', 'event', JSON.stringify(e));
    }
    const c = new FeedConsumer(redis, keys, {
      streamKeys: [gapStream],
      group: 'gap',
      consumer: 'c',
      blockMs: 20,
      count: 10,
      minIdleMs: 60_000,
      claimEveryMs: 60_000,
      gapTimeoutMs: 300,
      audit: false,
    });
    await c.start();
    await c.poll();
    expect((await readTimeline(redis, keys, f)).map((t) => t.postId)).toEqual([p1]);
    expect(c.stats.deferred).toBeGreaterThan(0);
    const t0 = Date.now();
    while (c.stats.gapsAccepted === 0 && Date.now() - t0 < 10_000) await c.poll();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(c.stats.gapsAccepted).toBe(1);
    expect((await readTimeline(redis, keys, f)).map((t) => t.postId)).toEqual([p3, p1]);
    expect((await marksOf(redis, keys, f)).get(profile)).toEqual({ generation: 1n, version: 3n });
    await c.close();
  });

  it('applies every version once: duplicates, a dead consumer, a SIGKILLed one, several shards', async () => {
    const rand = prng(26);
    const profiles = Array.from({ length: 6 }, (_, i) => String(880_000 + i));
    const w = buildWorkload(rand, profiles, 420);
    const followers = Array.from({ length: 4 }, () => freshFollower());
    const graph = new Map(
      followers.map((f, i) => [f, profiles.filter((_, j) => j % 4 === i || (j + i) % 3 === 0)]),
    );
    for (const [f, ps] of graph) {
      for (const p of ps) await follow(redis, keys, f, p, { generation: 1n, version: 0n });
    }
    const sent = deliveries(rand, w, 0.15);
    for (const e of sent) {
      await redis.xadd(
        shardOf(e.profile_id),
        'MAXLEN',
        '~',
        '100000',
        '*',
        'event',
        JSON.stringify(e),
      );
    }
    await redis.xadd(shardOf(profiles[0]!), '*', 'event', '{"not":"an event"}');

    const settings = {
      streamKeys: STREAMS,
      group: 'feed',
      blockMs: 100,
      count: 7,
      minIdleMs: 300,
      claimEveryMs: 100,
      // No gap in these streams is permanent: any forced application would be a bug.
      gapTimeoutMs: 600_000,
      audit: true,
    };
    const a = new FeedConsumer(redis, keys, { ...settings, consumer: 'a' });
    await a.start();

    // A consumer that read a batch, applied half of it and died before acknowledging anything.
    const reply = (await redis.call(
      'XREADGROUP',
      'GROUP',
      'feed',
      'ghost',
      'COUNT',
      '15',
      'STREAMS',
      ...STREAMS,
      ...STREAMS.map(() => '>'),
    )) as Array<[string, Array<[string, string[]]>]>;
    const ghostEntries = reply.flatMap(([, entries]) => entries);
    for (const [, fields] of ghostEntries.slice(0, Math.floor(ghostEntries.length / 2))) {
      const e = JSON.parse(fields[1]!) as ChangeEvent;
      for (const [f, ps] of graph) {
        if (ps.includes(e.profile_id)) await applyForFollower(redis, keys, f, planOf(e), true);
      }
    }

    // The CLI as a consumer, killed while entries it read are still pending on it.
    // node itself (tsx as its loader), not npx: SIGKILL then reaches the consumer, which would
    // otherwise outlive the test, orphaned, still reading the shared Redis.
    const doomed = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'examples/feed/main.ts',
        '--redis',
        ctx.redisUrl,
        '--stream-prefix',
        PREFIX,
        '--shards',
        String(SHARDS),
        '--feed-prefix',
        `${PREFIX}feed:`,
        '--consumer',
        'doomed',
        '--count',
        '10',
        '--audit',
        '--min-idle-ms',
        '600000',
      ],
      { stdio: 'ignore' },
    );
    const pendingOnDoomed = async () => {
      let n = 0;
      for (const key of STREAMS) {
        const [, , , consumers] = (await redis.xpending(key, 'feed')) as [
          number,
          string,
          string,
          Array<[string, string]> | null,
        ];
        n += Number(consumers?.find(([c]) => c === 'doomed')?.[1] ?? 0);
      }
      return n;
    };
    const t0 = Date.now();
    while ((await pendingOnDoomed()) === 0 && Date.now() - t0 < 60_000) {
      await new Promise((r) => setTimeout(r, 2));
    }
    doomed.kill('SIGKILL');
    await new Promise((r) => doomed.once('exit', r));
    const leftByDoomed = await pendingOnDoomed();
    expect(leftByDoomed, 'the killed consumer left entries pending').toBeGreaterThan(0);

    // Two live consumers take over and drain everything.
    const b = new FeedConsumer(redis, keys, { ...settings, consumer: 'b' });
    await b.start();
    const drained = async () => {
      for (const key of STREAMS) {
        const [pending] = (await redis.xpending(key, 'feed')) as [number];
        const groups = (await redis.call('XINFO', 'GROUPS', key)) as Array<Array<string | number>>;
        const info = groups[0]!;
        const delivered = info[info.indexOf('last-delivered-id') + 1];
        const stream = (await redis.call('XINFO', 'STREAM', key)) as Array<string | number>;
        if (pending > 0 || delivered !== stream[stream.indexOf('last-generated-id') + 1]) {
          return false;
        }
      }
      return true;
    };
    const t1 = Date.now();
    while (!(await drained())) {
      expect(Date.now() - t1, 'drained within 90 s').toBeLessThan(90_000);
      await Promise.all([a.poll(), b.poll()]);
    }
    await a.close();
    await b.close();

    // The feeds against the grids.
    const { finals, entered } = truthOf(w);
    const gridsOf = new Map<string, string[]>();
    for (const [p, steps] of w.steps) {
      for (const s of steps)
        for (const post of s.gridAfter)
          gridsOf.set(post, [...new Set([...(gridsOf.get(post) ?? []), p])]);
    }
    let checkedPosts = 0;
    let removedChecked = 0;
    for (const [f, ps] of graph) {
      const timeline = await readTimeline(redis, keys, f);
      const expected = new Set(ps.flatMap((p) => [...finals.get(p)!]));
      // 0 duplicate entries, each at its creation time (never re-positioned).
      expect(new Set(timeline.map((t) => t.postId)).size).toBe(timeline.length);
      for (const t of timeline) expect(t.score).toBe(feedScore(t.postId));
      expect(timeline.map((t) => t.postId.toString()).sort()).toEqual([...expected].sort());
      for (const post of w.created) {
        const followed = (gridsOf.get(post) ?? []).filter((p) => ps.includes(p));
        if (followed.length === 0) continue;
        checkedPosts += 1;
        if (w.removedOnce.has(post) && !expected.has(post)) removedChecked += 1;
      }
      // Every post entered the timeline as often as it (re)entered a followed grid: moves add 0.
      const inserts = await redis.hgetall(keys.inserts(f));
      for (const [member, n] of Object.entries(inserts)) {
        const post = BigInt(member).toString();
        const followed = (gridsOf.get(post) ?? []).filter((p) => ps.includes(p));
        const total = followed.reduce((sum, p) => sum + (entered.get(p)!.get(post) ?? 0), 0);
        if (followed.length === 1) expect(Number(n), `${f} ${post}`).toBe(total);
        else expect(Number(n)).toBeLessThanOrEqual(total);
        expect(Number(n)).toBeGreaterThanOrEqual(1);
      }
      // Caught up: every followed profile at its last version.
      const marks = await marksOf(redis, keys, f);
      for (const p of ps) expect(marks.get(p)?.version).toBe(BigInt(w.steps.get(p)!.length));
    }
    const sum = (k: keyof FeedStats) => a.stats[k] + b.stats[k];
    console.log(
      `[feed] ${sent.length} entries (${sent.length - [...w.steps.values()].flat().length} duplicates),` +
        ` ghost ${ghostEntries.length} (half applied), doomed left ${leftByDoomed};` +
        ` a+b: events ${sum('events')} applied ${sum('applied')} duplicates ${sum('duplicates')}` +
        ` deferred ${sum('deferred')} claimed ${sum('claimed')} inserts ${sum('inserts')}` +
        ` removals ${sum('removals')} kept ${sum('kept')} refused ${sum('reinsertsRefused')}` +
        ` malformed ${sum('malformed')}; posts checked ${checkedPosts}, removed-and-gone ${removedChecked}`,
    );
    expect(sum('claimed')).toBeGreaterThanOrEqual(ghostEntries.length);
    expect(sum('duplicates')).toBeGreaterThan(0);
    expect(sum('gapsAccepted')).toBe(0);
    // The malformed entry was acknowledged by whoever read it (drained), not retried forever.
    expect(sum('malformed')).toBeLessThanOrEqual(1);
    expect(removedChecked).toBeGreaterThan(0);
  });
});
