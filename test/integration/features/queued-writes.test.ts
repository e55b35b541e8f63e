/**
 * Writes queued behind each other on one grid's write line (real Cassandra), each committed in a
 * conditional batch of its own: what each keeps for itself (its Idempotency-Key outcome, its undo
 * record, its request deadline), a batch whose outcome is unknown, the queue's own bound, and
 * races with a second process.
 */
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import {
  fingerprintRequest,
  SimulatedCrash,
  type IdempotencyService,
  type StoredResponse,
} from '../../../src/service/idempotency/idempotency.js';
import { IdempotencyService as Idempotency } from '../../../src/service/idempotency/idempotency.js';
import { StatementScope, statementScope } from '../../../src/store/cql-budget.js';
import { findUndo } from '../../../src/domain/undo-ring.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { groupService, modelOrder, occupy, type AckedMove } from './line-harness.js';
import { GridService } from '../../../src/service/grid-service.js';
import { TracingCql } from '../../../src/store/trace.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

let worker = 7850;
const nextWorker = () => worker++;

/** `n` moves spread over the grid (never a post after itself), deterministic. */
function moves(posts: readonly bigint[], n: number, salt = 0) {
  return Array.from({ length: n }, (_, i) => {
    const post = posts[(i * 7 + salt) % posts.length]!;
    let after: bigint | null = i % 5 === 0 ? null : posts[(i * 3 + 1 + salt) % posts.length]!;
    if (after === post) after = null;
    return { post, after };
  });
}

/** The grid read whole through a traced service, and what the reads met. */
async function tracedOrder(p: bigint) {
  const traced = new TracingCql(f.client);
  const reader = new GridService({
    cql: traced,
    config: f.config,
    ids: f.ids,
    cursorSecret: 'feature-tests-cursor-secret',
  });
  const ids: bigint[] = [];
  let cursor: string | undefined;
  do {
    const page = await reader.pages.page({ profileId: p, limit: 7, cursor });
    ids.push(...page.items.map((i) => i.postId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { ids, tally: await traced.tally() };
}

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

describe('queued writes: Idempotency-Key', () => {
  it('queued keyed moves: each its own outcome, and each replays its own version', async () => {
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

  it('a crash between the commits and their responses: every key replays its outcome, every move undoes', async () => {
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
      throw new SimulatedCrash('after the commit, before its response');
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
    expect((await g.service.readHead(p)).version).toBe(v0 + 6n); // every move did commit
    const replays = [];
    for (const [i, [x, after]] of wanted.entries())
      replays.push(await keyed.move(`c${i}`, x, after));
    expect(replays.every((r) => r.replayed)).toBe(true);
    const versions = replays.map(versionIn);
    expect(sorted(versions)).toEqual(Array.from({ length: 6 }, (_, i) => v0 + BigInt(i + 1)));
    expect((await g.service.readHead(p)).version).toBe(v0 + 6n); // nothing applied twice
    // Each move's own entry in the undo ring, with the version it committed.
    const ring = (await g.service.store.readHead(p, {}, true)).recentMoves ?? [];
    const bounds = { now: Date.now(), ttlMs: 60_000 };
    for (const [i, id] of moveIds.entries()) {
      expect(findUndo(ring, id, bounds)?.version).toBe(versions[i]);
    }
    // Undone newest first: only the last move is undone exactly (nothing after it).
    const byVersion = moveIds
      .map((id, i) => ({ id, v: versions[i]! }))
      .sort((a, b) => Number(b.v - a.v));
    const exact = [];
    for (const m of byVersion) exact.push((await g.service.undoMove(p, m.id)).result.exact);
    expect(exact).toEqual([true, false, false, false, false, false]);
    expect(await order(f, p)).toEqual(initial);
  });
});

describe('a failure after a batch timed out', () => {
  it('a batch that applied but timed out, then a failed re-read: the write answers outcome unknown, never unavailable', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const all = posts.slice(0, 1).map((x) =>
      g.service.move(p, x, null).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    g.timeOutNextBatch();
    // Reads fail for longer than the writer retries: the turn gives up on its re-read.
    g.failReadsAfterTimeout(1000);
    await line.release(1);
    const out = await Promise.all(all);
    g.failReadsAfterTimeout(0);
    expect((await g.service.readHead(p)).version).toBe(v0 + 1n); // the batch did commit
    for (const e of out) expect(e).toMatchObject({ code: 'write_outcome_unknown' });
  });
});

describe('queued writes: deadlines and bounds', () => {
  it('a queued write whose request deadline passed before its batch is not sent (not applied)', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 4);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const lateScope = new StatementScope();
    const okScope = new StatementScope();
    const marker = 7n; // a key nobody else writes
    const late = statementScope
      .run(lateScope, () =>
        g.service.writer.writeGrid(p, async (ctx) => ({
          kind: 'write',
          mutation: {
            upserts: [{ postId: posts[0]!, sortKey: marker, movedVersion: ctx.nextVersion }],
          },
          result: null,
        })),
      )
      .catch((e: unknown) => e);
    // A write that sends nothing itself: only its batch can count as its write.
    const ok = statementScope.run(okScope, () =>
      g.service.writer.writeGrid(p, async (ctx) => ({
        kind: 'write',
        mutation: {
          upserts: [{ postId: posts[1]!, sortKey: posts[1]!, movedVersion: ctx.nextVersion }],
        },
        result: null,
      })),
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

describe('queued writes: races', () => {
  it('with a second process moving the same grid: nothing lost, order = model, no tombstone', async () => {
    const a = groupService(f, nextWorker());
    const b = groupService(f, nextWorker());
    const p = freshProfile(f);
    await seed(f, p, 20);
    const initial = await order(f, p);
    const v0 = (await f.service.readHead(p)).version;
    const acks: AckedMove[] = [];
    let contention = 0;
    let seq = 0;
    const writer = (svc: GridService, salt: number) =>
      Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (const m of moves(initial, 3, salt + w)) {
            try {
              const out = await svc.move(p, m.post, m.after);
              acks.push({ postId: m.post, after: m.after, version: out.version, seq: seq++ });
            } catch (err) {
              // A lost compare-and-set (certainly not applied) after every attempt.
              if (isDomainError(err) && err.code === 'contention') contention += 1;
              else throw err;
            }
          }
        }),
      );
    await Promise.all([writer(a.service, 0), writer(b.service, 100)]);
    expect(acks.length + contention).toBe(48);
    expect(new Set(acks.map((x) => x.version)).size).toBe(acks.length);
    expect(await order(f, p)).toEqual(modelOrder(initial, acks));
    // The version counts exactly the acknowledged moves: none applied twice, none lost.
    expect((await f.service.readHead(p)).version).toBe(v0 + BigInt(acks.length));
    const read = await tracedOrder(p);
    expect(new Set(read.ids).size).toBe(20);
    expect(read.tally.tombstoneCells).toBe(0);
  });

  it('with pins, archive/unarchive, reset, batch order and another process: the grid stays whole', async () => {
    const a = groupService(f, nextWorker());
    const b = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 10);
    const initial = await order(f, p);
    const tolerated = new Set([
      'post_pinned',
      'anchor_not_on_grid',
      'post_not_on_grid',
      'precondition_failed',
    ]);
    const tolerate = async (w: Promise<unknown>) => {
      try {
        await w;
      } catch (err) {
        if (!isDomainError(err) || !tolerated.has(err.code)) throw err;
      }
    };
    for (let round = 0; round < 3; round++) {
      const o = await a.service.readOrder(p);
      const target = posts[round + 2]!;
      await Promise.all([
        ...moves(initial, 10, round).map((m) => tolerate(a.service.move(p, m.post, m.after))),
        ...moves(initial, 6, round + 50).map((m) => tolerate(b.service.move(p, m.post, m.after))),
        tolerate(a.service.setPins(p, [posts[round]!])),
        tolerate(
          a.service
            .archivePost(p, target)
            .then(() => a.service.unarchivePost(p, target, 'previous')),
        ),
        tolerate(a.service.patchOrder(p, o.etag, { postIds: [...o.postIds].reverse() })),
        tolerate(round === 1 ? a.service.reset(p) : a.service.setPins(p, [])),
        tolerate(b.service.setPins(p, [posts[9 - round]!])),
      ]);
      const now = await a.service.readOrder(p);
      const shown = [...now.pinned, ...now.postIds];
      expect(new Set(shown).size).toBe(shown.length);
      expect([...shown].sort()).toEqual([...posts].sort());
      expect((await a.service.readHead(p)).postCount).toBe(BigInt(posts.length));
    }
    const findings = [];
    for await (const x of f.service.auditAll([p])) findings.push(x);
    expect(findings).toEqual([]);
  });
});
