/**
 * Group commit on the real Cassandra (service/write/group-commit.ts): writes queued for one grid
 * in one process are planned one after another on one snapshot and committed in one conditional
 * batch. Each still gets its own version; the order is the one the moves imply in version order;
 * a refused write fails alone; deletions, a reset and membership writes commit alone; and other
 * writes of the grid, from this process or another, lose nothing and leave no post twice.
 */
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { GridService } from '../../../src/service/grid-service.js';
import { TracingCql } from '../../../tools/loadtest/cql-trace.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import {
  groupService,
  groupSizes,
  modelOrder,
  occupy,
  until,
  type AckedMove,
} from './group-harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

let worker = 7800;
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

/** Starts a write and waits until it is in the profile's line, before the next one starts. */
async function inLine<T>(
  svc: GridService,
  p: bigint,
  start: () => Promise<T>,
): Promise<{ readonly done: Promise<T> }> {
  const before = svc.writer.queued(p);
  const done = start();
  done.catch(() => undefined); // awaited later; not an unhandled rejection meanwhile
  await until(() => svc.writer.queued(p), before + 1);
  return { done };
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

async function moveAll(svc: GridService, p: bigint, ms: ReturnType<typeof moves>) {
  const acks: AckedMove[] = [];
  const failed: string[] = [];
  await Promise.all(
    ms.map(async (m, seq) => {
      try {
        const out = await svc.move(p, m.post, m.after);
        acks.push({ postId: m.post, after: m.after, version: out.version, seq });
      } catch (err) {
        if (!isDomainError(err)) throw err;
        failed.push(err.code);
      }
    }),
  );
  return { acks, failed };
}

describe('group commit', () => {
  it('24 queued moves: one batch, each its own version, the order of the moves in version order', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    await seed(f, p, 30);
    const initial = await order(f, p);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const batches0 = g.batches();
    const running = moveAll(g.service, p, moves(initial, 24));
    await line.release(24);
    const { acks, failed } = await running;
    expect(failed).toEqual([]);
    expect(g.batches() - batches0).toBe(1); // all 24 in one conditional batch
    expect(groupSizes(g.events)).toEqual([24]);
    expect(acks.map((a) => a.version).sort((x, y) => Number(x! - y!))).toEqual(
      Array.from({ length: 24 }, (_, i) => v0 + BigInt(i) + 1n),
    );
    expect((await g.service.readHead(p)).version).toBe(v0 + 24n);
    expect(await order(f, p)).toEqual(modelOrder(initial, acks));
  });

  it('16 writers, 3 moves each: far fewer batches than moves, no 503, order = model', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    await seed(f, p, 24);
    const initial = await order(f, p);
    const batches0 = g.batches();
    const acks: AckedMove[] = [];
    let seq = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (const m of moves(initial, 3, w)) {
          const out = await g.service.move(p, m.post, m.after);
          acks.push({ postId: m.post, after: m.after, version: out.version, seq: seq++ });
        }
      }),
    );
    expect(acks).toHaveLength(48);
    expect(new Set(acks.map((a) => a.version)).size).toBe(48);
    expect(g.batches() - batches0).toBeLessThanOrEqual(12);
    expect(await order(f, p)).toEqual(modelOrder(initial, acks));
  });

  it('a refused write fails alone; the others of its group commit', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 12);
    await g.service.setPins(p, [posts[0]!]);
    const initial = await order(f, p);
    const v0 = (await g.service.readHead(p)).version;
    const line = await occupy(g.service, p);
    const good = moves(initial, 8);
    const outcomes = Promise.all([
      moveAll(g.service, p, good.slice(0, 3)),
      g.service.move(p, 424242n, null).catch((e: unknown) => e), // not on this grid
      moveAll(g.service, p, good.slice(3, 6)),
      g.service.move(p, initial[2]!, 434343n).catch((e: unknown) => e), // anchor not on it
      g.service.move(p, posts[0]!, null).catch((e: unknown) => e), // pinned
      moveAll(g.service, p, good.slice(6)),
    ]);
    await line.release(11);
    const [a, notOnGrid, b, anchorless, pinned, c] = await outcomes;
    expect([notOnGrid, anchorless, pinned].map((e) => isDomainError(e) && e.code)).toEqual([
      'post_not_on_grid',
      'anchor_not_on_grid',
      'post_pinned',
    ]);
    const acks = [...a.acks, ...b.acks, ...c.acks];
    expect(acks).toHaveLength(8);
    expect(groupSizes(g.events.slice(-1))).toEqual([8]);
    expect((await g.service.readHead(p)).version).toBe(v0 + 8n);
    expect(await order(f, p)).toEqual(modelOrder(initial, acks));
  });

  it('a refusal behind a write of its group sees that write (pin, then move it)', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const [x, y] = await seed(f, p, 4);
    const line = await occupy(g.service, p);
    const pin = await inLine(g.service, p, () => g.service.setPins(p, [x!]));
    const move = await inLine(g.service, p, () =>
      g.service.move(p, x!, null).catch((e: unknown) => e),
    );
    const other = await inLine(g.service, p, () => g.service.move(p, y!, null));
    await line.release(3);
    const pinned = await pin.done;
    const refused = await move.done;
    expect(isDomainError(refused) && refused.code).toBe('post_pinned');
    expect((await other.done).version).toBe(pinned.version + 1n);
    expect(groupSizes(g.events.slice(-1))).toEqual([2]);
  });

  it('a reset and membership writes commit alone; a move after a reset is not lost', async () => {
    const g = groupService(f, nextWorker());
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    await g.service.move(p, posts[0]!, null); // an override for the reset to drop
    const line = await occupy(g.service, p);
    const events0 = g.events.length;
    const writes = [
      await inLine(g.service, p, () => g.service.move(p, posts[1]!, null)),
      await inLine(g.service, p, () => g.service.move(p, posts[2]!, null)),
      await inLine(g.service, p, () => g.service.reset(p)),
      await inLine(g.service, p, () => g.service.move(p, posts[3]!, null)),
      await inLine(g.service, p, () => g.service.archivePost(p, posts[4]!)),
      await inLine(g.service, p, () => g.service.move(p, posts[5]!, null)),
    ];
    await line.release(6);
    const v = (await Promise.all(writes.map((w) => w.done))).map((o) => o.version);
    // Arrival order is commit order, each its own version.
    expect(v).toEqual(v.map((_, i) => v[0]! + BigInt(i)));
    expect(groupSizes(g.events.slice(events0))).toEqual([2, 1, 1, 1, 1]);
    for (const e of g.events.slice(events0)) {
      const alone = e.mutation.clearOverrides || (e.mutation.effects?.length ?? 0) > 0;
      if (alone) expect(e.version - e.before.head.version).toBe(1n);
    }
    // Reset: chronological (newest first); then 3 to the top, 4 archived, 5 to the top.
    expect(await order(f, p)).toEqual([posts[5], posts[3], posts[2], posts[1], posts[0]]);
  });
});

describe('group commit races', () => {
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
    expect(a.events.some((e) => e.version - e.before.head.version > 1n)).toBe(true); // grouped
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
    expect(a.events.some((e) => e.version - e.before.head.version > 1n)).toBe(true); // grouped
    const findings = [];
    for await (const x of f.service.auditAll([p])) findings.push(x);
    expect(findings).toEqual([]);
  });
});
