/**
 * The cache behind Redis Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER): a private primary, a
 * replica and three sentinels (own-sentinels.ts), once in plain text and once TLS-only (the
 * primary, the replica and the sentinels refuse plain text: regrid reaches the sentinels and the
 * primary over TLS with REDIS_TLS_*, a `rediss://` REDIS_URL lending the TLS). Two service
 * instances (A moves and reads, B reads) use the cache through the sentinels while moves run;
 * the primary is SIGKILLed; the sentinels promote the replica and both instances follow. Every
 * move is answered and none acknowledged is lost (Cassandra holds them); the cache answers again
 * from the promoted replica; and no page is stale afterwards, even for a move whose invalidation
 * the old primary acknowledged but never passed to the replica (made certain here: the
 * replica's link is cut just before that move).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSummary } from '../../../src/cache/codec.js';
import { cacheKeys } from '../../../src/cache/keys.js';
import { createRedisGuard } from '../../../src/cache/redis.js';
import type { RedisGuard } from '../../../src/cache/redis.js';
import { redisAnswers } from '../../../tools/infra/redis-local.js';
import { testConfig } from '../support/stores.js';
import { freshProfile, openStores, seedPosts } from './harness.js';
import type { Stores } from './harness.js';
import { startSentinels, type OwnSentinels } from './own-sentinels.js';
import { allPages, move, serviceWith } from './service-api.js';
import { makeTestCerts, sleep, type TestCerts } from '../support/own-processes.js';

const MASTER = 'regrid';
let s: Stores;

beforeAll(async () => {
  s = await openStores();
});

afterAll(async () => {
  await s?.close();
});

describe.each([
  ['plain', false],
  ['TLS-only', true],
])('Redis Sentinel (%s): the primary killed under moves', (mode, tls) => {
  let set: OwnSentinels;
  let certs: TestCerts | undefined;

  beforeAll(async () => {
    certs = tls ? makeTestCerts() : undefined;
    set = await startSentinels(MASTER, certs);
  });

  afterAll(async () => {
    await set?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  /** The client side: `rediss` and the test CA and client certificate, or plain text. */
  const clientTls = (): Record<string, string> =>
    certs
      ? {
          REDIS_URL: 'rediss://127.0.0.1',
          REDIS_TLS_CA_FILE: certs.ca,
          REDIS_TLS_CERT_FILE: certs.clientCert,
          REDIS_TLS_KEY_FILE: certs.clientKey,
        }
      : { REDIS_URL: 'redis://127.0.0.1' };

  it('a client that ended without its guard closing it connects again', async () => {
    // ioredis ends a Sentinel client for good when a +switch-master interrupts its reconnection
    // (src/cache/redis-client.ts reconnectWhenEnded); any end the guard did not ask for, here.
    const config = testConfig({
      REDIS_SENTINELS: set.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
      REDIS_SENTINEL_MASTER: MASTER,
      ...clientTls(),
    });
    const guard = createRedisGuard(config, { log: () => {} });
    try {
      expect(await guard.waitReady(5000)).toBe(true);
      const ended = new Promise((ok) => guard.client.once('end', ok));
      guard.client.disconnect();
      await ended;
      expect(await guard.waitReady(5000)).toBe(true);
      expect(await guard.run((c) => c.ping())).toBe('PONG');
    } finally {
      await guard.close();
    }
  });

  it.runIf(tls)('the sentinels and servers refuse plain text', async () => {
    for (const port of [set.primaryPort, set.replicaPort, ...set.sentinelPorts]) {
      expect(await redisAnswers('127.0.0.1', port)).toBe(false);
    }
  });

  it('regrid follows the failover, loses no acknowledged move, and serves no stale page', async () => {
    // Production Redis timeout; request deadlines twice the production ones (shared machine).
    const config = testConfig({
      REDIS_SENTINELS: set.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
      REDIS_SENTINEL_MASTER: MASTER,
      ...clientTls(),
      REDIS_TIMEOUT_MS: '150',
      REQUEST_DEADLINE_READ_MS: '2000',
      REQUEST_DEADLINE_WRITE_MS: '4000',
    });
    const guards: RedisGuard[] = [];
    try {
      // What each guard's connection went through, printed with the outcome (a failure's clue).
      const seenBy = { A: new Set<string>(), B: new Set<string>() };
      const guardA = createRedisGuard(config, { log: (l) => seenBy.A.add(l) });
      const guardB = createRedisGuard(config, { log: (l) => seenBy.B.add(l) });
      guardA.client.on('error', (e: Error) => seenBy.A.add(e.message));
      guardB.client.on('error', (e: Error) => seenBy.B.add(e.message));
      guards.push(guardA, guardB);
      expect(await guardA.waitReady(5000)).toBe(true);
      expect(await guardB.waitReady(5000)).toBe(true);
      const servedBy = async (g: RedisGuard) =>
        Number(/tcp_port:(\d+)/.exec((await g.run((c) => c.info('server'))) ?? '')?.[1]);
      expect(await servedBy(guardA)).toBe(set.primaryPort);

      const a = serviceWith(s, config, guardA, { deadlines: true });
      const b = serviceWith(s, config, guardB, { deadlines: true });
      const plain = serviceWith(s, s.config);
      const profiles = [freshProfile(s), freshProfile(s), freshProfile(s), freshProfile(s)];
      const postsOf = new Map<bigint, bigint[]>();
      for (const p of profiles) postsOf.set(p, await seedPosts(s, p, 30));
      for (const api of [a, b, a, b]) for (const p of profiles) await allPages(api, p, 24); // warm
      const statsOf = (api: typeof a) => api.service.caches!.grid.stats;
      expect(statsOf(a).hits).toBeGreaterThan(0);
      expect(statsOf(b).hits).toBeGreaterThan(0);

      const statuses: number[] = [];
      const acked = new Map<bigint, { postId: bigint; version: bigint }>();
      const moveOne = async (p: bigint, postId: bigint) => {
        const m = await move(a, p, postId, null);
        statuses.push(m.status);
        if (m.status !== 200) return;
        acked.set(p, { postId, version: BigInt(m.json.grid_version) });
        const q = new URLSearchParams({ limit: '24', min_version: m.json.grid_version });
        const mine = await a.call('GET', `/v1/profiles/${p}/grid?${q}`);
        statuses.push(mine.status);
        if (mine.status === 200) expect(mine.json.items[0].id).toBe(String(postId));
        statuses.push((await b.call('GET', `/v1/profiles/${p}/grid?limit=24`)).status);
      };
      const round = (n: number, which = profiles) =>
        Promise.all(
          which.map((p) => {
            const posts = postsOf.get(p)!;
            return moveOne(p, posts[(n * 7 + profiles.indexOf(p)) % posts.length]!);
          }),
        );
      for (let n = 0; n < 3; n++) await round(n);

      // The invalidation the replica never gets: the primary stops taking the replica back
      // (a password it does not have) and drops its link; then one move, acknowledged.
      const victim = profiles[0]!;
      const gate = set.admin(set.primaryPort);
      await gate.connect();
      await gate.config('SET', 'requirepass', 'replica-locked-out');
      await gate.client('KILL', 'TYPE', 'replica');
      gate.disconnect();
      const lostPost = postsOf.get(victim)![29]!;
      await moveOne(victim, lostPost);
      expect(acked.get(victim)?.postId).toBe(lostPost);
      expect(await set.info(set.replicaPort, 'replication')).toMatch(/master_link_status:down/);
      // What the replica will be promoted with: the summary of a state before that move.
      const onReplica = set.admin(set.replicaPort);
      await onReplica.connect();
      const stale = decodeSummary(await onReplica.get(cacheKeys.summary(victim)));
      onReplica.disconnect();
      expect(stale).toBeDefined();
      expect(stale!.version).toBeLessThan(acked.get(victim)!.version);

      const hitsAtKill = [statsOf(a).hits, statsOf(b).hits];
      const killedAt = Date.now();
      await set.primary.kill();

      // Moves of the other profiles go on through the failover (the victim's last move must
      // stay the one the replica missed), and B keeps reading the victim, until both instances
      // answer from the promoted replica and a few rounds more; bounded at 40 s.
      let n = 3;
      let followedAt = 0;
      let seen = '';
      while (Date.now() - killedAt < 40_000) {
        await round(n++, profiles.slice(1));
        statuses.push((await b.call('GET', `/v1/profiles/${victim}/grid?limit=24`)).status);
        const [pa, pb] = await Promise.all([servedBy(guardA), servedBy(guardB)]);
        seen = `A on :${pa} (${guardA.health()}), B on :${pb} (${guardB.health()})`;
        if (!followedAt && pa === set.replicaPort && pb === set.replicaPort) followedAt = n;
        if (followedAt && n >= followedAt + 4) break;
      }
      const promoted = await Promise.all(set.sentinelPorts.map(set.masterSeenBy));
      console.log(
        `[redis sentinel ${mode}] primary :${set.primaryPort} killed; sentinels name :${promoted.join(', :')}; ` +
          `${followedAt ? 'both instances followed' : 'not followed'} (${seen}) ` +
          `${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill, ${n} rounds, ${statuses.length} requests ${JSON.stringify(countOf(statuses))}; ` +
          `failover sweeps A ${a.service.caches!.grid.repairs.sweeps}, B ${b.service.caches!.grid.repairs.sweeps}; ` +
          `A saw ${JSON.stringify([...seenBy.A])}, B saw ${JSON.stringify([...seenBy.B])}`,
      );
      expect(followedAt).toBeGreaterThan(0);
      expect(promoted).toEqual(set.sentinelPorts.map(() => set.replicaPort));
      expect(statuses.filter((x) => x !== 200)).toEqual([]);
      // Each instance swept the summaries the promoted replica might hold from before.
      expect(a.service.caches!.grid.repairs.sweeps).toBeGreaterThan(0);
      expect(b.service.caches!.grid.repairs.sweeps).toBeGreaterThan(0);

      // No stale page: B (which never wrote) reads every grid as Cassandra has it, with the last
      // acknowledged move on top; the cache answers again (hits after the failover) from the
      // promoted replica, and agrees page by page with the uncached service.
      await sleep(200);
      for (const p of profiles) {
        const truth = await allPages(plain, p, 24);
        expect(truth[0]!.ids[0]).toBe(String(acked.get(p)!.postId));
        expect(BigInt(truth[0]!.version)).toBe(acked.get(p)!.version);
        expect(new Set(truth.flatMap((x) => x.ids)).size).toBe(30);
        for (const api of [b, a, b, a]) {
          const pages = await allPages(api, p, 24);
          expect(pages.map((x) => x.ids)).toEqual(truth.map((x) => x.ids));
          expect(pages[0]!.version).toBe(truth[0]!.version);
        }
      }
      expect(statsOf(a).hits).toBeGreaterThan(hitsAtKill[0]!);
      expect(statsOf(b).hits).toBeGreaterThan(hitsAtKill[1]!);
      expect(guardA.health()).toBe('ok');
      expect(guardB.health()).toBe('ok');
      const ready = await a.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json.checks.redis).toBe('ok');
    } finally {
      for (const g of guards) await g.close();
    }
  });
});

function countOf(xs: readonly number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
