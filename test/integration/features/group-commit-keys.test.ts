/**
 * Group commit and what each write of a group keeps for itself (real Cassandra): its
 * Idempotency-Key outcome (the ring entry its interceptor added rides in the group's batch), its
 * undo record, its request deadline; and the queue's own bounds.
 */
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { RING_SIZE } from '../../../src/domain/request-ring.js';
import type { GridService } from '../../../src/service/grid-service.js';
import {
  fingerprintRequest,
  SimulatedCrash,
  type IdempotencyService,
  type StoredResponse,
} from '../../../src/service/idempotency/idempotency.js';
import { IdempotencyService as Idempotency } from '../../../src/service/idempotency/idempotency.js';
import { StatementScope } from '../../../src/store/statement-scope.js';
import { findUndo } from '../../../src/domain/undo-ring.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { groupService, groupSizes, occupy } from './group-harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

let worker = 7850;
const nextWorker = () => worker++;

const render = (_r: unknown, version: bigint): StoredResponse => ({
  status: 200,
  body: { grid_version: version.toString() },
});

/** The idempotency service over `svc`'s own ring reads, as the HTTP app wires it. */
const idempotencyOf = (svc: GridService): IdempotencyService =>
  new Idempotency(f.idemStore, {
    heads: (p) => svc.readRequestRing(p),
    ttlS: f.config.IDEMPOTENCY_TTL_S,
    leaseMs: 30_000,
  });

/** A keyed move as the route makes it; `started` counts those past their claim. */
function keyedMoves(svc: GridService, idem: IdempotencyService, p: bigint) {
  let started = 0;
  const move = (key: string, postId: bigint, after: bigint | null, moveId?: string) => {
    const body = JSON.stringify({ post_id: postId.toString(), after: after?.toString() ?? null });
    return idem.run(
      {
        scope: p,
        key,
        fingerprint: fingerprintRequest({ method: 'POST', route: '/v1/me/grid/moves', body }),
        gridProfileId: p,
        render,
      },
      async (ticket) => {
        started += 1;
        const out = await svc.move(p, postId, after, {
          interceptor: idem.interceptor(ticket, p),
          moveId,
        });
        return render(out, out.version);
      },
    );
  };
  return { move, started: () => started };
}

const sorted = (xs: readonly bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const versionIn = (r: { response: StoredResponse }) =>
  BigInt((r.response.body as { grid_version: string }).grid_version);

describe('group commit: Idempotency-Key', () => {
  it('keyed moves in one group: each its own outcome, and each replays its own version', async () => {
    const g = groupService(f, nextWorker());
    const idem = idempotencyOf(g.service);
    const p = freshProfile(f);
    const posts = await seed(f, p, 10);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const keyed = keyedMoves(g.service, idem, p);
    const first = Promise.all(posts.slice(0, 8).map((x, i) => keyed.move(`k${i}`, x, null)));
    await line.release(8);
    const out = await first;
    expect(groupSizes(g.events.slice(-1))).toEqual([8]);
    expect(out.map((r) => r.replayed)).toEqual(Array(8).fill(false));
    const versions = out.map(versionIn);
    expect(sorted(versions)).toEqual(Array.from({ length: 8 }, (_, i) => v0 + BigInt(i + 1)));
    const ring = (await g.service.readRequestRing(p)).recentRequests ?? [];
    expect(sorted(ring.map((e) => e.version))).toEqual(sorted(versions));
    for (let i = 0; i < 8; i++) {
      const again = await keyed.move(`k${i}`, posts[i]!, null);
      expect(again.replayed).toBe(true);
      expect(versionIn(again)).toBe(versions[i]);
    }
    expect((await g.service.readHead(p)).version).toBe(v0 + 8n);
  });

  it('writes without a key neither read nor write the ring: keys replay across them, also from a mixed group', async () => {
    const g = groupService(f, nextWorker());
    const idem = idempotencyOf(g.service);
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    const keyed = keyedMoves(g.service, idem, p);
    const first = await keyed.move('a', posts[0]!, null);
    // A group of moves without a key: its turn reads no ring, its batch writes none.
    let line = await occupy(g.service, p);
    const plain = Promise.all(posts.slice(1, 4).map((x) => g.service.move(p, x, null)));
    await line.release(3);
    await plain;
    expect(groupSizes(g.events.slice(-1))).toEqual([3]);
    // A keyed move grouped with two without: the turn reads the ring and the key joins it.
    line = await occupy(g.service, p);
    const mixed = Promise.all([
      g.service.move(p, posts[5]!, null),
      keyed.move('b', posts[4]!, null),
      g.service.move(p, posts[1]!, null),
    ]);
    await line.release(3);
    const [, second] = await mixed;
    expect(groupSizes(g.events.slice(-1))).toEqual([3]);
    const ring = (await g.service.readRequestRing(p)).recentRequests ?? [];
    expect(sorted(ring.map((e) => e.version))).toEqual(
      sorted([versionIn(first), versionIn(second)]),
    );
    for (const [key, post, was] of [
      ['a', posts[0]!, first],
      ['b', posts[4]!, second],
    ] as const) {
      const again = await keyed.move(key, post, null);
      expect(again.replayed).toBe(true);
      expect(versionIn(again)).toBe(versionIn(was));
    }
  });

  it(`at most ${RING_SIZE} keyed writes share a batch (every key stays in its ring)`, async () => {
    const g = groupService(f, nextWorker());
    const idem = idempotencyOf(g.service);
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const keyed = keyedMoves(g.service, idem, p);
    const n = RING_SIZE + 1;
    const all = Array.from({ length: n }, (_, i) =>
      keyed.move(`r${i}`, posts[i % 6]!, null).catch((e: unknown) => e),
    );
    await line.release(n);
    const out = await Promise.all(all);
    expect(groupSizes(g.events.slice(-1))).toEqual([RING_SIZE]);
    // The one left waited behind RING_SIZE keyed commits newer than its claim: as in a plain
    // queue, the ring cannot prove it absent any more, so it is refused, not applied twice.
    const refused = out.filter(isDomainError);
    expect(refused.map((e) => e.details)).toEqual([
      expect.objectContaining({ outcome: 'unknown' }),
    ]);
    expect((await g.service.readHead(p)).version).toBe(v0 + BigInt(RING_SIZE));
  });

  it('a crash between the group commit and its responses: every key replays its outcome, every move undoes', async () => {
    const g = groupService(f, nextWorker());
    const idem = idempotencyOf(g.service);
    const p = freshProfile(f);
    const posts = await seed(f, p, 8);
    const initial = await order(f, p);
    const v0 = (await g.service.readHead(p)).version;
    const moveIds = Array.from({ length: 6 }, () => crypto.randomUUID());
    const wanted = [
      [posts[0]!, null],
      [posts[5]!, posts[1]!],
      [posts[2]!, null],
      [posts[7]!, posts[3]!],
      [posts[4]!, null],
      [posts[6]!, posts[0]!],
    ] as const;
    const line = await occupy(g.service, p);
    const keyed = keyedMoves(g.service, idem, p);
    g.hooks.afterCas = () => {
      throw new SimulatedCrash('after the group commit, before its responses');
    };
    let crashed: unknown[];
    try {
      const all = wanted.map(([x, after], i) =>
        keyed.move(`c${i}`, x, after, moveIds[i]).catch((e: unknown) => e),
      );
      await line.release(6);
      crashed = await Promise.all(all);
    } finally {
      delete g.hooks.afterCas;
    }
    expect(crashed.every((e) => e instanceof SimulatedCrash)).toBe(true);
    expect((await g.service.readHead(p)).version).toBe(v0 + 6n); // the group did commit
    const replays = [];
    for (const [i, [x, after]] of wanted.entries())
      replays.push(await keyed.move(`c${i}`, x, after));
    expect(replays.every((r) => r.replayed)).toBe(true);
    const versions = replays.map(versionIn);
    expect(sorted(versions)).toEqual(Array.from({ length: 6 }, (_, i) => v0 + BigInt(i + 1)));
    expect((await g.service.readHead(p)).version).toBe(v0 + 6n); // nothing applied twice
    // Each move's own entry in the undo ring the group committed, with the version it committed.
    const ring = (await g.service.store.readHead(p, {}, 'writer')).recentMoves ?? [];
    const bounds = { now: Date.now(), ttlMs: 60_000 };
    for (const [i, id] of moveIds.entries()) {
      expect(findUndo(ring, id, bounds)?.version).toBe(versions[i]);
    }
    // Undone newest first: only the group's last move is undone exactly (nothing after it).
    const byVersion = moveIds
      .map((id, i) => ({ id, v: versions[i]! }))
      .sort((a, b) => Number(b.v - a.v));
    const exact = [];
    for (const m of byVersion) exact.push((await g.service.undoMove(p, m.id)).result.exact);
    expect(exact).toEqual([true, false, false, false, false, false]);
    expect(await order(f, p)).toEqual(initial);
  });
});

describe('group commit: a batch whose outcome is unknown', () => {
  it('a timed-out batch that did apply: the group re-reads, each key replays its own outcome, nothing twice', async () => {
    const g = groupService(f, nextWorker());
    const idem = idempotencyOf(g.service);
    const p = freshProfile(f);
    const posts = await seed(f, p, 8);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const keyed = keyedMoves(g.service, idem, p);
    const all = Promise.all(posts.slice(0, 5).map((x, i) => keyed.move(`t${i}`, x, null)));
    const plain = g.service.move(p, posts[7]!, posts[6]!); // unkeyed: applied again, harmlessly
    g.timeOutNextBatch();
    await line.release(6);
    const out = await all;
    // The re-read found every key in the ring the timed-out batch wrote: each answers the
    // version that batch gave it (all six of its writes applied), none is applied twice.
    const versions = out.map(versionIn);
    expect(new Set(versions).size).toBe(5);
    for (const v of versions) expect(v > v0 && v <= v0 + 6n).toBe(true);
    const moved = await plain;
    expect(moved.version).toBe(v0 + 7n); // planned again on v0 + 6, committed alone
    expect((await g.service.readHead(p)).version).toBe(v0 + 7n);
    expect(groupSizes(g.events.slice(-1))).toEqual([1]);
    // Each keyed move (to the top) applied once, in the order of its version.
    const top = posts
      .slice(0, 5)
      .map((x, i) => ({ x, v: versions[i]! }))
      .sort((a, b) => Number(b.v - a.v))
      .map((m) => m.x);
    const now = await order(f, p);
    expect(now.slice(0, 5)).toEqual(top);
    expect(now.indexOf(posts[7]!)).toBe(now.indexOf(posts[6]!) + 1);
  });
});

describe('group commit: a failure after a batch timed out', () => {
  it('a batch that applied but timed out, then a failed re-read: every write answers outcome unknown, never unavailable', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const all = posts.slice(0, 4).map((x) =>
      g.service.move(p, x, null).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    g.timeOutNextBatch();
    // Reads fail for longer than the writer retries: the round gives up on its re-read.
    g.failReadsAfterTimeout(1000);
    await line.release(4);
    const out = await Promise.all(all);
    g.failReadsAfterTimeout(0);
    expect((await g.service.readHead(p)).version).toBe(v0 + 4n); // the batch did commit
    for (const e of out) expect(e).toMatchObject({ code: 'write_outcome_unknown' });
  });
});

describe('group commit: deadlines and bounds', () => {
  it('a write whose request deadline passed before the batch is left out of it (not applied)', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 4);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const lateScope = new StatementScope();
    const okScope = new StatementScope();
    const marker = 7n; // a key nobody else writes
    const late = g.service.writer
      .writeGrid(
        p,
        async (ctx) => ({
          kind: 'write',
          mutation: {
            upserts: [{ postId: posts[0]!, sortKey: marker, movedVersion: ctx.nextVersion }],
          },
          result: null,
        }),
        { scope: lateScope },
      )
      .catch((e: unknown) => e);
    // A write that sends nothing itself: only the group's batch can count as its write.
    const ok = g.service.writer.writeGrid(
      p,
      async (ctx) => ({
        kind: 'write',
        mutation: {
          upserts: [{ postId: posts[1]!, sortKey: posts[1]!, movedVersion: ctx.nextVersion }],
        },
        result: null,
      }),
      { scope: okScope },
    );
    const other = g.service.move(p, posts[2]!, null);
    lateScope.seal(); // its deadline answered "not applied"
    await line.release(3);
    const err = await late;
    expect(isDomainError(err) && err.code).toBe('unavailable');
    expect(sorted([(await ok).version, (await other).version])).toEqual([v0 + 1n, v0 + 2n]);
    expect((await g.service.readHead(p)).version).toBe(v0 + 2n);
    const { overrides } = await g.service.store.readOverrides(p);
    expect(overrides.some((o) => o.key === marker)).toBe(false);
    expect(lateScope.mayHaveWritten).toBe(false); // its answer stays true
    expect(okScope.mayHaveWritten).toBe(true); // the batch was its write too
  });

  it('WRITE_GROUP_MAX_WRITES=1 commits every write alone', async () => {
    const g = groupService(f, nextWorker(), { WRITE_GROUP_MAX_WRITES: 1 });
    const p = freshProfile(f);
    const posts = await seed(f, p, 5);
    const line = await occupy(g.service, p);
    const all = Promise.all(posts.map((x) => g.service.move(p, x, null)));
    await line.release(5);
    await all;
    expect(groupSizes(g.events.slice(-5))).toEqual([1, 1, 1, 1, 1]);
  });

  it('503 contention only for a write that waited in line longer than the bound', async () => {
    const g = groupService(f, nextWorker(), { WRITE_QUEUE_MAX_WAIT_MS: 100 });
    const p = freshProfile(f);
    const [x] = await seed(f, p, 2);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const waited = g.service.move(p, x!, null).catch((e: unknown) => e);
    const err = await waited; // answered while the line is still held
    await line.release(0);
    expect(isDomainError(err) && err.code).toBe('contention');
    expect((await g.service.readHead(p)).version).toBe(v0);
  });
});
