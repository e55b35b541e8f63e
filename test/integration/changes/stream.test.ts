/**
 * The change stream on real Cassandra and Redis (docs/integration.md "Change stream"): one event
 * per committed version, in version order, for every kind of grid write; group commits; the gap
 * a writer fills from the change log; the sweeper after a publish that never happened; and moves
 * that stay tombstone-free with the change log written in their batches.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCrash } from '../../../src/service/idempotency/idempotency-ticket.js';
import { TracingCql } from '../../../tools/loadtest/cql-trace.js';
import { ChangeLogStore } from '../../../src/store/change-log-store.js';
import { consistencyOf } from '../../../src/store/cassandra.js';
import { openPerFile } from '../support/per-file.js';
import { startCqlProxy } from '../support/tcp-proxy.js';
import {
  openChanges,
  randomProfile,
  seedGrid,
  upTo,
  versionsOf,
  type ChangesHarness,
} from './harness.js';
import { redisSchemeOf } from '../support/tls-clients.js';

let h: ChangesHarness;
openPerFile(openChanges, (opened) => (h = opened));

describe('the change stream', () => {
  it('publishes one event per version, in order, with the kind and posts of every operation', async () => {
    const me = randomProfile();
    const s = h.service;
    const seeded = await seedGrid(h, s, me, 5); // v1: a bump ("changed")
    const [a, b, c] = seeded;
    const created = await s.createPost(me, { caption: 'new' }); // v2
    const p = created.value.postId;
    const moved = await s.move(me, a!, b!); // v3
    await s.setPins(me, [c!]); // v4
    await s.setPins(me, []); // v5
    await s.archivePost(me, b!); // v6
    await s.unarchivePost(me, b!, 'previous'); // v7
    const head = await s.readHead(me);
    const order = (await s.pages.page({ profileId: me, limit: 50 })).items.map((i) => i.postId);
    const swapped = [order[1]!, order[0]!, ...order.slice(2)];
    await s.patchOrder(me, `"${head.generation}.${head.version}"`, { postIds: swapped }); // v8
    await s.undoMove(me, moved.moveId); // v9
    await s.reset(me); // v10
    await s.deletePost(me, p); // v11
    const final = await s.readHead(me);
    expect(final.version).toBe(11n);

    const events = await h.waitEvents(me, 11);
    expect(versionsOf(events)).toEqual(upTo(11));
    expect(events.map((e) => e.kind)).toEqual([
      'changed',
      'created',
      'moved',
      'pinned',
      'unpinned',
      'archived',
      'unarchived',
      'batch_reordered',
      'undone',
      'reset',
      'deleted',
    ]);
    const posts = (i: number) => events[i]!.post_ids;
    expect(posts(0)).toEqual([]);
    expect(posts(1)).toEqual([p.toString()]);
    expect(posts(2)).toEqual([a!.toString()]); // the moved post, not its relabelled neighbours
    expect(posts(3)).toEqual([c!.toString()]);
    expect(posts(4)).toEqual([c!.toString()]);
    expect(posts(5)).toEqual([b!.toString()]);
    expect(posts(6)).toEqual([b!.toString()]);
    // The batch order names the posts whose relative position changed: of the two swapped.
    expect(posts(7).length).toBeGreaterThan(0);
    for (const id of posts(7)) expect([String(swapped[0]), String(swapped[1])]).toContain(id);
    expect(posts(8)).toEqual([a!.toString()]);
    expect(posts(10)).toEqual([p.toString()]);
    for (const e of events) {
      expect(e.generation).toBe('1');
      expect(Number.isNaN(Date.parse(e.at))).toBe(false);
    }
  });

  it('a group commit publishes one event per version of the group, in order', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 12);
    // Concurrent moves of one profile queue up and commit in groups (one batch, k versions).
    const outs = await Promise.all(ids.slice(1).map((id) => h.service.move(me, id, null)));
    const versions = outs.map((o) => Number(o.version)).sort((x, y) => x - y);
    expect(versions).toEqual(upTo(12, 2));
    const events = await h.waitEvents(me, 12);
    expect(versionsOf(events)).toEqual(upTo(12));
    const byVersion = new Map(outs.map((o, i) => [o.version.toString(), ids[i + 1]!.toString()]));
    for (const e of events.slice(1)) {
      expect(e.kind).toBe('moved');
      expect(e.post_ids).toEqual([byVersion.get(e.version)]);
    }
    // Marks kept across the group's rounds are gone once the line is idle (half the sweep age).
    await new Promise((r) => setTimeout(r, Number(h.config.CHANGES_SWEEP_AGE_MS) / 2 + 200));
    const pending = `${h.config.CHANGES_KEY_PREFIX}changes:{${me % 4n}}:pending`;
    const members = await h.raw.zrange(pending, 0, -1);
    expect(members.filter((m) => m.startsWith(`${me}|`))).toEqual([]);
  });

  it('a writer after unpublished versions (stream off) publishes them first, from the change log', async () => {
    const me = randomProfile();
    const off = await h.serviceWith({ CHANGES_STREAM: 'off' });
    const ids = await seedGrid(h, off, me, 4); // v1
    await off.move(me, ids[3]!, null); // v2
    await off.move(me, ids[2]!, null); // v3
    expect(await h.events(me)).toEqual([]);
    expect(await h.raw.zcard(`${h.config.CHANGES_KEY_PREFIX}changes:{${me % 4n}}:pending`)).toBe(0);
    await h.service.move(me, ids[1]!, null); // v4: the gap 1..3 first
    const events = await h.waitEvents(me, 4);
    expect(versionsOf(events)).toEqual(upTo(4));
    expect(events.map((e) => e.kind)).toEqual(['changed', 'moved', 'moved', 'moved']);
  });

  it('the sweeper publishes what a writer that died after its commit never did', async () => {
    const me = randomProfile();
    let crash = false;
    const hooks = {
      afterCas: () => {
        if (crash) throw new SimulatedCrash('after the compare-and-set');
      },
    };
    const dying = await h.serviceWith({}, hooks);
    const ids = await seedGrid(h, dying, me, 4); // v1, published
    await h.waitEvents(me, 1);
    crash = true;
    await expect(dying.move(me, ids[3]!, null)).rejects.toThrow(/simulated crash/); // v2
    await expect(dying.move(me, ids[2]!, null)).rejects.toThrow(/simulated crash/); // v3
    expect((await h.service.readHead(me)).version).toBe(3n);
    expect(versionsOf(await h.events(me))).toEqual([1]);
    const pending = `${h.config.CHANGES_KEY_PREFIX}changes:{${me % 4n}}:pending`;
    expect(await h.raw.zcard(pending)).toBeGreaterThanOrEqual(1); // the mark stayed

    // A sweeper leaves a mark younger than its CHANGES_SWEEP_AGE_MS alone (a live writer's). A
    // bound of a minute, not this harness's 300 ms: a loaded machine (the TLS suite on 2 cores)
    // took longer than 300 ms from the crash to the first sweep, and it swept.
    const patient = await h.serviceWith({ CHANGES_SWEEP_AGE_MS: '60000' });
    const young = patient.changes.startSweeper()!;
    expect(await young.sweep()).toBe(0);
    await young.stop();
    // Another instance's sweeper (interval 0 here: it sweeps when asked), once the mark is older.
    const other = await h.serviceWith({});
    const sweep = other.changes.startSweeper()!;
    await new Promise((r) => setTimeout(r, Number(h.config.CHANGES_SWEEP_AGE_MS) + 50));
    expect(await sweep.sweep()).toBe(2);
    await sweep.stop();
    expect(versionsOf(await h.events(me))).toEqual([1, 2, 3]);
    expect(await h.raw.zcard(pending)).toBe(0);
    await h.service.move(me, ids[1]!, null); // v4: no gap, no duplicate
    expect(versionsOf(await h.waitEvents(me, 4))).toEqual(upTo(4));
  });

  it('versions whose mark and publish Redis never got are published by the sweeper once it answers', async () => {
    const me = randomProfile();
    const url = new URL(h.config.REDIS_URL);
    const proxy = await startCqlProxy({ host: url.hostname, port: Number(url.port || 6379) });
    try {
      const cut = await h.serviceWith({
        REDIS_URL: `${redisSchemeOf(h.config)}://127.0.0.1:${proxy.port}`,
        REDIS_TIMEOUT_MS: '300',
      });
      const ids = await seedGrid(h, cut, me, 3); // v1, published
      expect(versionsOf(await h.waitEvents(me, 1))).toEqual([1]);
      await proxy.kill(); // connections reset: nothing of what follows reaches Redis
      await cut.move(me, ids[2]!, null); // v2
      await cut.move(me, ids[1]!, null); // v3
      await proxy.revive();
      const sweeper = cut.changes.startSweeper()!;
      let published = 0;
      for (let i = 0; i < 50 && published === 0; i++) {
        await new Promise((r) => setTimeout(r, 100)); // until the guard reconnected
        published = await sweeper.sweep();
      }
      await sweeper.stop();
      expect(published).toBe(2);
      expect(versionsOf(await h.events(me))).toEqual([1, 2, 3]);
    } finally {
      await proxy.close();
    }
  });

  it('with Redis off the change log is still written (the catch-up reads it)', async () => {
    const me = randomProfile();
    const noRedis = await h.serviceWith({ REDIS_URL: 'none' });
    const ids = await seedGrid(h, noRedis, me, 3);
    await noRedis.move(me, ids[2]!, null);
    expect(noRedis.changes.publisher).toBeUndefined();
    const page = await noRedis.changes.after(me, 0n, 10);
    expect(page.gridVersion).toBe(2n);
    expect(page.page.kind === 'ok' && page.page.changes.map((c) => c.kind)).toEqual([
      'changed',
      'moved',
    ]);
  });

  it('moves with the change log in their batches stay tombstone-free (Cassandra tracing)', async () => {
    const me = randomProfile();
    const ids = await seedGrid(h, h.service, me, 20);
    // More versions than the log has slots: every slot is overwritten at least once.
    const slots = h.config.CHANGE_LOG_VERSIONS;
    for (let i = 0; i < slots + 10; i++) await h.service.move(me, ids[i % 20]!, ids[(i + 7) % 20]!);
    const traced = new TracingCql(h.client);
    const log = await new ChangeLogStore(traced, consistencyOf(h.config)).read(me);
    expect(log.records.length).toBe(slots);
    expect(log.records[log.records.length - 1]!.version).toBe(log.version);
    const tally = await traced.tally();
    console.log(
      `[changes tombstones] change log read: ${tally.liveRows} live rows, ${tally.tombstoneCells} tombstone cells`,
    );
    expect(tally.reads).toBeGreaterThan(0);
    expect(tally.tombstoneCells).toBe(0);
  });
});
