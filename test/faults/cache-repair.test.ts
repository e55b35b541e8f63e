/**
 * The parts of the stale-read fix, one at a time, on the private stores (the sweep deletes every
 * summary in Redis, which must not happen to the shared one):
 * - an invalidation that a stopped Redis never got is applied before this process reads through
 *   Redis again, and until then its reads go to Cassandra;
 * - past CACHE_REPAIR_MAX_PROFILES the process sweeps every summary (and only summaries and
 *   leases: pages survive).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cacheKeys } from '../../src/cache/keys.js';
import { sleep } from '../../tools/infra/process-utils.js';
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

/** The instance's first page through its cache, with how the cache answered. */
const readFirst = (i: Instance, p: bigint) =>
  i.service.caches!.grid.read(p, 24, undefined, async () => {
    const page = await i.service.pages.page({ profileId: p, limit: 24 });
    const body = JSON.stringify(page.entries.map((e) => String(e.postId)));
    return {
      page: { generation: page.generation, version: page.version, body, etag: body },
      keep: true,
    };
  });

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
    const before = await readFirst(inst, p); // publishes the summary of this version
    expect((await readFirst(inst, p)).served).toBe('cache');

    let during: { version: bigint; served: string } | undefined;
    let owed = 0;
    await withRedisStopped(async () => {
      await bump(inst, p); // its invalidation times out: owed
      owed = grid.repairs.owed;
      during = await readFirst(inst, p);
    });
    expect(during).toEqual(expect.objectContaining({ version: before.version + 1n }));
    expect(during!.served).toBe('direct');

    // Past the breaker's cool-down (1 s), when the old summary would be served again.
    const seen: Array<{ version: bigint; served: string }> = [];
    for (const t0 = Date.now(); Date.now() - t0 < 1500; await sleep(20)) {
      const r = await readFirst(inst, p);
      seen.push({ version: r.version, served: r.served });
    }
    expect(seen.filter((r) => r.version !== before.version + 1n)).toEqual([]);
    expect(seen.some((r) => r.served === 'cache')).toBe(true); // Redis is back in use
    expect(owed).toBe(1);
    expect(grid.repairs).toEqual(expect.objectContaining({ owed: 0, repaired: 1, sweeps: 0 }));
  });

  it('past CACHE_REPAIR_MAX_PROFILES, sweeps every summary but keeps pages', async () => {
    const grid = small.service.caches!.grid;
    const written = [freshProfile(), freshProfile(), freshProfile()];
    const bystander = freshProfile();
    const versions = new Map<bigint, bigint>();
    for (const p of [...written, bystander]) {
      await seedGrid(small, p, 4);
      versions.set(p, (await readFirst(small, p)).version);
    }
    const redis = small.guard.client;
    const [bystanderOrder = 'none'] = await redis.keys(`grid:{${bystander}}:*`);
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
      expect((await readFirst(small, p)).version).toBe(versions.get(p)! + 1n);
    }
    const again = await readFirst(small, bystander);
    expect([again.version, again.served]).toEqual([versions.get(bystander), 'fill']);
  });
});
