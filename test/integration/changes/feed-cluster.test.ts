/**
 * The reference feed consumer (examples/feed/) on a private 3-master Redis Cluster
 * (test/integration/cache/own-cluster.ts): the shard streams spread over the masters, so the
 * consumer reads each shard key on its own, and the per-follower scripts must stay inside one
 * slot (a cross-slot script is refused by the cluster). Duplicated and out-of-order entries and a
 * dead consumer's pending entries included; the timelines are held to the pure model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { FeedConsumer } from '../../../examples/feed/consumer.js';
import { feedMember } from '../../../examples/feed/decide.js';
import { follow, readTimeline } from '../../../examples/feed/graph.js';
import { feedKeysOf, streamKeysOf } from '../../../examples/feed/keys.js';
import { startOwnCluster, type OwnCluster } from '../cache/own-cluster.js';
import { buildWorkload, deliveries, prng } from '../../unit/feed/workload.js';

// Ports of this file only (the cache cluster test takes 17001-17003).
const PORTS = [17461, 17462, 17463];
const SHARDS = 6;
const STREAMS = streamKeysOf('regrid_t_feed:', SHARDS);
const keys = feedKeysOf('regrid_t_feed:feed:');
let cluster: OwnCluster;
let redis: Cluster;

beforeAll(async () => {
  cluster = await startOwnCluster(PORTS);
  redis = new Cluster(PORTS.map((port) => ({ host: '127.0.0.1', port })));
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

describe('feed consumer on a Redis Cluster', () => {
  it('reads every shard on its master and applies every version once', async () => {
    const masters = new Set(await Promise.all(STREAMS.map((k) => cluster.masterOf(k))));
    expect(masters.size, 'the shard streams live on several masters').toBeGreaterThan(1);

    const rand = prng(61);
    const profiles = Array.from({ length: 6 }, (_, i) => String(770_000 + i));
    const w = buildWorkload(rand, profiles, 240);
    const followers = ['11', '12', '13'];
    const graph = new Map(
      followers.map((f, i) => [f, profiles.filter((_, j) => (i + j) % 2 === 0)]),
    );
    for (const [f, ps] of graph) {
      for (const p of ps) await follow(redis, keys, f, p, { generation: 1n, version: 0n });
    }
    for (const e of deliveries(rand, w, 0.15)) {
      const stream = STREAMS[Number(BigInt(e.profile_id) % BigInt(SHARDS))]!;
      await redis.xadd(stream, '*', 'event', JSON.stringify(e));
    }
    const settings = {
      streamKeys: STREAMS,
      group: 'feed',
      blockMs: 50,
      count: 9,
      minIdleMs: 300,
      claimEveryMs: 100,
      gapTimeoutMs: 600_000,
      audit: false,
    };
    const a = new FeedConsumer(redis, keys, { ...settings, consumer: 'a' });
    await a.start();
    // A consumer that read a batch from every shard and died before applying any of it.
    for (const key of STREAMS) {
      await redis.xreadgroup('GROUP', 'feed', 'ghost', 'COUNT', '5', 'STREAMS', key, '>');
    }
    const b = new FeedConsumer(redis, keys, { ...settings, consumer: 'b' });
    await b.start();
    const drained = async () => {
      for (const key of STREAMS) {
        const [pending] = (await redis.xpending(key, 'feed')) as [number];
        const [group] = (await redis.xinfo('GROUPS', key)) as Array<Array<string | number>>;
        const info = (await redis.xinfo('STREAM', key)) as Array<string | number>;
        const delivered = group![group!.indexOf('last-delivered-id') + 1];
        if (pending > 0 || delivered !== info[info.indexOf('last-generated-id') + 1]) return false;
      }
      return true;
    };
    const t0 = Date.now();
    while (!(await drained())) {
      expect(Date.now() - t0, 'drained within 60 s').toBeLessThan(60_000);
      await Promise.all([a.poll(), b.poll()]);
    }
    await a.close();
    await b.close();

    for (const [f, ps] of graph) {
      const expected = new Set(ps.flatMap((p) => [...(w.steps.get(p)!.at(-1)?.gridAfter ?? [])]));
      const timeline = await readTimeline(redis, keys, f);
      expect(timeline.map((t) => feedMember(t.postId)).sort()).toEqual(
        [...expected].map((id) => feedMember(BigInt(id))).sort(),
      );
    }
    expect(a.stats.claimed + b.stats.claimed).toBeGreaterThanOrEqual(5);
    expect(a.stats.gapsAccepted + b.stats.gapsAccepted).toBe(0);
  });
});
