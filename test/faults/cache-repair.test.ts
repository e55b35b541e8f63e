/**
 * The parts of the stale-read fix, one at a time, on the private stores (the sweep deletes every
 * summary in Redis, which must not happen to the shared one):
 * - an invalidation that a stopped Redis never got is applied before this process reads through
 *   Redis again, and until then its reads go to Cassandra;
 * - past CACHE_REPAIR_MAX_PROFILES the process sweeps every summary (and only summaries, previous
 *   summaries and leases: order entries survive);
 * - a direct read already in flight when a write of this process commits does not answer a read
 *   that starts after the write was acknowledged (single flight is per commit, not per profile).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gridCacheSettingsOf } from '../../src/cache/caches.js';
import { createGridCache } from '../../src/cache/grid-cache.js';
import { cacheKeys } from '../../src/cache/keys.js';
import { createRedisGuard } from '../../src/cache/redis.js';
import { createOverrideCache } from '../../src/cache/override-cache.js';
import type { GridReads } from '../../src/domain/grid-source.js';
import { settledSource } from '../../src/service/read/settled-read.js';
import { sleep } from '../../tools/infra/process-utils.js';
import { GridWriter, writerSettingsOf } from '../../src/service/write-line/write-line.js';
import { faultsConfig, signalRedis } from './support/private-stores.js';
import { freshProfile, openInstance, seedGrid, type Instance } from './support/instance.js';

const { redisPid } = inject('faults');

let inst: Instance;
let small: Instance; // remembers at most two profiles
beforeAll(async () => {
  inst = await openInstance(faultsConfig());
  small = await openInstance(faultsConfig({ CACHE_REPAIR_MAX_PROFILES: '2' }));
});
afterAll(async () => {
  await inst?.close();
  await small?.close();
});

const bump = (i: Instance, profileId: bigint) =>
  i.service.writer.writeGrid(profileId, async () => ({
    kind: 'write',
    mutation: {},
    result: null,
  }));

/** Runs `during` with the private Redis stopped; it is resumed whatever happens. */
async function withRedisStopped(during: () => Promise<void>): Promise<void> {
  signalRedis(redisPid, 'SIGSTOP');
  try {
    await during();
  } finally {
    signalRedis(redisPid, 'SIGCONT');
  }
}

async function untilRepaired(i: Instance, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (i.service.caches!.grid.repairs.owed > 0) {
    if (Date.now() > deadline) throw new Error('owed invalidations were not repaired');
    await sleep(5);
  }
}

describe('invalidations a stopped Redis missed', () => {
  it('are applied before this process reads Redis again; Cassandra answers meanwhile', async () => {
    const grid = inst.service.caches!.grid;
    const p = freshProfile();
    await seedGrid(inst, p, 6);
    const before = await grid.readFirstOrder(p); // publishes the summary of this version
    expect((await grid.readFirstOrder(p)).served).toBe('cache');

    let during: { version: bigint; served: string } | undefined;
    let owed = 0;
    await withRedisStopped(async () => {
      await bump(inst, p); // its invalidation times out: owed
      owed = grid.repairs.owed;
      during = await grid.readFirstOrder(p);
    });
    expect(during).toEqual(expect.objectContaining({ version: before.version + 1n }));
    expect(during!.served).toBe('direct');

    // Past the breaker's cool-down (1 s), when the old summary would be served again.
    const seen: Array<{ version: bigint; served: string }> = [];
    for (const t0 = Date.now(); Date.now() - t0 < 1500; await sleep(20)) {
      const r = await grid.readFirstOrder(p);
      seen.push({ version: r.version, served: r.served });
    }
    expect(seen.filter((r) => r.version !== before.version + 1n)).toEqual([]);
    expect(seen.some((r) => r.served === 'cache')).toBe(true); // Redis is back in use
    expect(owed).toBe(1);
    expect(grid.repairs).toEqual(expect.objectContaining({ owed: 0, repaired: 1, sweeps: 0 }));
  });

  it('past CACHE_REPAIR_MAX_PROFILES, sweeps every summary but keeps order entries', async () => {
    const grid = small.service.caches!.grid;
    const written = [freshProfile(), freshProfile(), freshProfile()];
    const bystander = freshProfile();
    const versions = new Map<bigint, bigint>();
    for (const p of [...written, bystander]) {
      await seedGrid(small, p, 4);
      versions.set(p, (await grid.readFirstOrder(p)).version);
    }
    const redis = small.guard.client;
    const bystanderOrder = cacheKeys.order(bystander, 1n, versions.get(bystander)!);
    expect(await redis.exists(cacheKeys.summary(bystander), bystanderOrder)).toBe(2);

    await withRedisStopped(async () => {
      for (const p of written) await bump(small, p);
      expect(grid.repairs.owed).toBe(3); // two named, plus the overflow
    });
    await untilRepaired(small);

    expect(grid.repairs.sweeps).toBe(1);
    expect(await redis.exists(cacheKeys.summary(bystander))).toBe(0);
    expect(await redis.exists(bystanderOrder)).toBe(1);
    for (const p of written) {
      expect((await grid.readFirstOrder(p)).version).toBe(versions.get(p)! + 1n);
    }
    const again = await grid.readFirstOrder(bystander);
    expect([again.version, again.served]).toEqual([versions.get(bystander), 'fill']);
  });
});

describe('single flight of direct reads', () => {
  it('does not hand a read that started before a local write to one that started after', async () => {
    const config = faultsConfig({ REDIS_URL: 'redis://127.0.0.1:1' }); // nothing listens: direct
    const dead = createRedisGuard(config, { log: () => {} });
    const reader = inst.truth.reader;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let paused!: () => void;
    const reachedPause = new Promise<void>((r) => (paused = r));
    let first = true;
    // The real reader, with the first read paused after its head and before its rows.
    const source: GridReads = {
      head: (id, min) => reader.head(id, min),
      readHead: (id, c) => reader.readHead(id, c),
      overrides: (id) => reader.overrides(id),
      hydrate: (ids, known) => reader.hydrate(ids, known),
      entries: async (id, overrides, q) => {
        if (first) {
          first = false;
          paused();
          await released;
        }
        return reader.entries(id, overrides, q);
      },
    };
    // The settled read over this source, so its rows come through `entries` above.
    const lists = createOverrideCache(dead, source, config.CACHE_ORDER_TTL_S);
    const cache = createGridCache(dead, settledSource(source, lists), gridCacheSettingsOf(config));
    const writer = new GridWriter(
      inst.service.store,
      inst.service.membership,
      writerSettingsOf(config),
      {
        onCommitted: [(e) => cache.afterGridWrite(e.profileId)],
      },
    );
    try {
      const p = freshProfile();
      await seedGrid(inst, p, 5);
      const v1 = (await reader.readHead(p)).version;
      const early = cache.readFirstOrder(p);
      await reachedPause;
      const moved = await writer.writeGrid(p, async () => ({
        kind: 'write',
        mutation: {},
        result: null,
      }));
      expect(moved.version).toBe(v1 + 1n);
      const late = await Promise.race([cache.readFirstOrder(p), sleep(3000).then(() => 'joined')]);
      expect(late).toEqual(expect.objectContaining({ version: v1 + 1n, served: 'direct' }));
      release();
      expect((await early).version).toBe(v1); // it began before the write: allowed
    } finally {
      release();
      await dead.close();
    }
  });
});
