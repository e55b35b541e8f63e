/**
 * Every grid write against every other, concurrently, on one post of a small grid (real
 * Cassandra), then random bursts of mixed writes. After each trial the invariants of a grid:
 *   - every post that was not deleted is on the grid exactly once or archived exactly once;
 *   - no deleted post is shown or archived;
 *   - post_count equals the posts the grid holds;
 *   - the collaborative post is in exactly one state for its collaborator: on its grid (and
 *     listed as collaborator), invited (listed, not on the grid), or neither (not listed);
 *   - the audit is clean (run once over every profile at the end, with its orphan scan).
 * And a post taken down or deleted never comes back: a register or an import racing the removal
 * (a retry of a post already there, or its first arrival) leaves it gone, every later one is
 * refused (issue 31).
 * Outcomes may be any documented 4xx (DomainError); anything else fails the test.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { composeId, decomposeId } from '../../../src/domain/ids.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { createRng, type Rng } from '../../../tools/loadtest/rng.js';
import { freshProfile, httpApi, openFeatures, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';
import { idsFromWorkers } from '../support/stores.js';

let f: Features;
let features: GridService;
openPerFile(openFeatures, (opened) => {
  f = opened;
  features = f.service;
});

interface Trial {
  readonly profile: bigint;
  readonly posts: bigint[];
  /** Posts whose delete answered 2xx. */
  readonly deleted: Set<bigint>;
  readonly collaborator: bigint;
  /** The collaborative post (the author's, the collaborator invited). */
  readonly collab: bigint;
  readonly moveIds: string[];
}

type Op = (t: Trial, target: bigint) => Promise<unknown>;

let moveSeq = 0;
const newMoveId = () => `00000000-0000-4000-8000-${String(++moveSeq).padStart(12, '0')}`;

const OPS: Record<string, Op> = {
  moveTop: (t, p) => features.move(t.profile, p, null, { moveId: newMoveId() }),
  moveBelow: (t, p) => features.move(t.profile, t.posts[0]!, p, { moveId: newMoveId() }),
  pin: (t, p) => features.setPins(t.profile, [p]),
  unpin: (t) => features.setPins(t.profile, []),
  archive: (t, p) => features.archivePost(t.profile, p),
  unarchive: (t, p) => features.unarchivePost(t.profile, p, 'previous'),
  delete: async (t, p) => {
    await features.deletePost(t.profile, p);
    t.deleted.add(p);
  },
  create: async (t) => {
    const out = await features.createPost(t.profile, { caption: 'new', collaborators: [] });
    t.posts.push(out.value.postId);
  },
  reset: (t) => features.reset(t.profile),
  batchOrder: async (t) => {
    const o = await features.readOrder(t.profile);
    await features.patchOrder(t.profile, o.etag, { postIds: [...o.postIds].reverse() });
  },
  undo: (t) => features.undoMove(t.profile, t.moveIds[0]!),
  accept: (t, p) => features.acceptInvite(t.collaborator, p),
  decline: (t, p) => features.declineInvite(t.collaborator, p),
  leave: (t, p) => features.removeCollaborator(t.collaborator, p, t.collaborator),
  block: (t) => features.blockAuthor(t.collaborator, t.profile),
  takedown: async (t, p) => {
    await features.takedown(p);
    t.deleted.add(p);
  },
};

/**
 * A platform's own writes (service routes: ops/register.ts), raced against every operation
 * above: registering an older post of the platform's, registering the target again with its
 * current body (a no-op, or 409 once it changed), and unregistering (deleting) the target.
 */
let platformSeq = 0;
const PLATFORM_OPS: Record<string, Op> = {
  registerOld: async (t, p) => {
    const ms = decomposeId(p).ms - 1 - (platformSeq % 1000);
    const postId = composeId({ ms, worker: 7777, sequence: platformSeq++ % 1024 });
    const post = { postId, authorId: t.profile, caption: 'platform', mediaUrl: undefined };
    await features.platform.register({ ...post, createdAt: new Date(ms), collaborators: [] });
    t.posts.push(postId);
  },
  reregister: async (_t, p) => {
    const body = await f.service.posts.getPost(p);
    if (body && !body.removedAt) await features.platform.register(body);
  },
  unregister: async (t, p) => {
    await features.platform.unregister(t.profile, p);
    t.deleted.add(p);
  },
};

/** A grid of four posts, the target archived half of the time, one move recorded for undo. */
async function setup(rng: Rng): Promise<{ t: Trial; target: bigint }> {
  const profile = freshProfile(f);
  const collaborator = freshProfile(f);
  const posts: bigint[] = [];
  for (let i = 0; i < 3; i++) {
    posts.push(
      (await features.createPost(profile, { caption: `p${i}`, collaborators: [] })).value.postId,
    );
  }
  const collab = await features.createPost(profile, {
    caption: 'c',
    collaborators: [collaborator],
  });
  const target = collab.value.postId;
  posts.push(target);
  const t: Trial = {
    profile,
    posts,
    deleted: new Set(),
    collaborator,
    collab: target,
    moveIds: [],
  };
  const moveId = newMoveId();
  await features.move(profile, t.posts[1]!, null, { moveId: moveId });
  t.moveIds.push(moveId);
  if (rng.next() < 0.5) await features.archivePost(profile, target);
  return { t, target };
}

async function attempt(op: Op, t: Trial, target: bigint): Promise<void> {
  try {
    await op(t, target);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    if (err.code === 'contention' || err.code === 'unavailable') throw err;
  }
}

async function checkInvariants(t: Trial, label: string): Promise<void> {
  const order = await features.readOrder(t.profile);
  const shown = [...order.pinned, ...order.postIds];
  const archived: bigint[] = [];
  for (let before: bigint | undefined, more = true; more;) {
    const page = await features.listArchive(t.profile, 100, before);
    archived.push(...page.items.map((i) => i.post.postId));
    more = page.nextBefore !== null;
    before = page.nextBefore ?? undefined;
  }
  const head = await f.service.reader.readHead(t.profile);
  const where = `${label} (profile ${t.profile})`;
  expect(new Set(shown).size, `${where}: a post shown twice`).toBe(shown.length);
  expect(new Set(archived).size, `${where}: archived twice`).toBe(archived.length);
  for (const p of t.posts) {
    const places = Number(shown.includes(p)) + Number(archived.includes(p));
    if (t.deleted.has(p)) expect(places, `${where}: deleted ${p} still held`).toBe(0);
    else
      expect(
        places,
        `${where}: post ${p} on grid ${shown.includes(p)}, archived ${archived.includes(p)}`,
      ).toBe(1);
  }
  expect(head.postCount, `${where}: post_count`).toBe(BigInt(shown.length));
  // The collaborator's grid holds the collab post only if it was accepted and not deleted.
  const collabGrid = await features.readOrder(t.collaborator);
  for (const p of collabGrid.postIds)
    expect(t.deleted.has(p), `${where}: deleted ${p} on collaborator grid`).toBe(false);
  const collabHead = await f.service.reader.readHead(t.collaborator);
  expect(collabHead.postCount ?? 0n).toBe(BigInt(collabGrid.postIds.length));
  await checkCollaboration(t, where);
}

/** The collaborative post is in exactly one state for its collaborator (see the top). */
async function checkCollaboration(t: Trial, where: string): Promise<void> {
  const body = await f.service.posts.getPost(t.collab);
  const alive = body !== undefined && !body.removedAt;
  const listed = alive && body.collaborators.includes(t.collaborator);
  const collabGrid = await features.readOrder(t.collaborator);
  const onGrid = [...collabGrid.pinned, ...collabGrid.postIds].includes(t.collab);
  const invited = (await features.listInvites(t.collaborator)).some(
    (i) => i.post.postId === t.collab,
  );
  const state = `on grid ${onGrid}, invited ${invited}, listed ${listed}, alive ${alive}`;
  expect(Number(onGrid) + Number(invited), `${where}: ${state}`).toBeLessThanOrEqual(1);
  if (onGrid || invited) expect(listed, `${where}: ${state}`).toBe(true);
  if (!alive) expect(onGrid || invited, `${where}: ${state}`).toBe(false);
}

const profilesSeen: bigint[] = [];

describe('concurrent grid writes', () => {
  const names = Object.keys(OPS);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < names.length; i++)
    for (let j = i; j < names.length; j++) pairs.push([names[i]!, names[j]!]);

  it(`every pair of ${names.length} operations on one post keeps the grid whole`, async () => {
    const rng = createRng(9);
    const trialsPerPair = 4;
    for (const [a, b] of pairs) {
      for (let k = 0; k < trialsPerPair; k++) {
        const { t, target } = await setup(rng);
        profilesSeen.push(t.profile, t.collaborator);
        await Promise.all([attempt(OPS[a]!, t, target), attempt(OPS[b]!, t, target)]);
        await checkInvariants(t, `${a} ‖ ${b} #${k}`);
      }
    }
  }, 600_000);

  it("the platform's register, re-register and unregister against every operation", async () => {
    const rng = createRng(31);
    const all = { ...OPS, ...PLATFORM_OPS };
    for (const a of Object.keys(PLATFORM_OPS)) {
      for (const b of Object.keys(all)) {
        for (let k = 0; k < 2; k++) {
          const { t, target } = await setup(rng);
          profilesSeen.push(t.profile, t.collaborator);
          await Promise.all([attempt(all[a]!, t, target), attempt(all[b]!, t, target)]);
          await checkInvariants(t, `${a} ‖ ${b} #${k}`);
        }
      }
    }
  }, 600_000);

  it('random bursts of mixed writes keep the grid whole', async () => {
    const rng = createRng(17);
    for (let burst = 0; burst < 30; burst++) {
      const { t, target } = await setup(rng);
      profilesSeen.push(t.profile, t.collaborator);
      const ops = Array.from({ length: 8 }, () => names[rng.int(names.length)]!);
      const targets = ops.map(() =>
        rng.next() < 0.6 ? target : t.posts[rng.int(t.posts.length)]!,
      );
      await Promise.all(ops.map((name, i) => attempt(OPS[name]!, t, targets[i]!)));
      await checkInvariants(t, `burst ${burst}: ${ops.join(', ')}`);
    }
  }, 600_000);

  it('four concurrent archives of one post bump the version once; post_count stays exact', async () => {
    for (let i = 0; i < 10; i++) {
      const p = freshProfile(f);
      const posts: Array<{ postId: bigint }> = [];
      for (let k = 0; k < 3; k++)
        posts.push((await features.createPost(p, { caption: `${k}`, collaborators: [] })).value);
      const before = (await f.service.reader.readHead(p)).version;
      const outs = await Promise.all(
        [0, 1, 2, 3].map(() => features.archivePost(p, posts[1]!.postId)),
      );
      expect(outs.filter((o) => o.committed)).toHaveLength(1);
      const head = await f.service.reader.readHead(p);
      expect(head.version).toBe(before + 1n);
      expect(head.postCount).toBe(2n);
      profilesSeen.push(p);
    }
  }, 600_000);

  it('over HTTP: unarchive ‖ archive of an archived post never loses it (35 tries)', async () => {
    const { call } = httpApi(f);
    for (let i = 0; i < 35; i++) {
      const p = freshProfile(f);
      const created = await call('POST', '/v1/me/posts', { as: p, body: { caption: 'x' } });
      const id = created.json.post.id as string;
      expect((await call('POST', `/v1/me/posts/${id}/archive`, { as: p })).status).toBe(200);
      const [u, a] = await Promise.all([
        call('POST', `/v1/me/posts/${id}/unarchive`, { as: p, body: {} }),
        call('POST', `/v1/me/posts/${id}/archive`, { as: p }),
      ]);
      expect([u.status, a.status]).toEqual([200, 200]);
      const onGrid = (await call('GET', '/v1/me/grid/order', { as: p })).json.post_ids as string[];
      const archived = (await call('GET', '/v1/me/archive', { as: p })).json.data as unknown[];
      expect(onGrid.length + archived.length, `try ${i}`).toBe(1);
      const summary = await call('GET', `/v1/profiles/${p}/grid`);
      expect(summary.json.post_count).toBe(String(onGrid.length));
      profilesSeen.push(p);
    }
  }, 600_000);

  it('accept ‖ delete, decline, leave, takedown and block: one state, no stray bump', async () => {
    const rng = createRng(23);
    for (const other of ['delete', 'decline', 'leave', 'takedown', 'block']) {
      const outcomes = new Map<string, number>();
      for (let k = 0; k < 16; k++) {
        const { t, target } = await setup(rng);
        profilesSeen.push(t.profile, t.collaborator);
        const v0 = (await f.service.reader.readHead(t.collaborator)).version;
        // A random head start for one side (0–24 ms), so that both orders and the overlaps
        // in between are tried, not only whichever side happens to reach the store first.
        const lead = rng.int(25);
        const [acceptWait, otherWait] = rng.next() < 0.5 ? [lead, 0] : [0, lead];
        const [accepted] = await Promise.all([
          sleep(acceptWait)
            .then(() => features.acceptInvite(t.collaborator, target))
            .then(
              (o) => o.committed,
              (err: unknown) => {
                if (!isDomainError(err) || err.code !== 'post_not_found') throw err;
                return false;
              },
            ),
          sleep(otherWait).then(() => attempt(OPS[other]!, t, target)),
        ]);
        await checkInvariants(t, `accept ‖ ${other} #${k}`);
        const onGrid = (await features.readOrder(t.collaborator)).postIds.includes(target);
        const v1 = (await f.service.reader.readHead(t.collaborator)).version;
        // The collaborator's grid moves only for the accept and for taking an accepted post (or
        // one being accepted) off it again: at most two versions, none when nothing was accepted.
        if (!accepted) expect(v1, `accept ‖ ${other} #${k}: version`).toBeLessThanOrEqual(v0 + 1n);
        expect(v1 - v0, `accept ‖ ${other} #${k}: version`).toBeLessThanOrEqual(2n);
        const key = `${accepted ? 'accepted' : 'refused'}, ${onGrid ? 'on grid' : 'off grid'}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      console.info(`accept ‖ ${other}: ${JSON.stringify([...outcomes])}`);
    }
  }, 600_000);

  it('a removed post stays gone: register ‖ takedown, register ‖ delete, import ‖ takedown', async () => {
    const rng = createRng(31_31);
    const body = (profile: bigint, postId: bigint) => ({
      postId,
      authorId: profile,
      caption: 'final',
      mediaUrl: undefined,
      createdAt: new Date(decomposeId(postId).ms),
      collaborators: [],
    });
    const writers: Record<string, (profile: bigint, x: bigint, y: bigint) => Promise<unknown>> = {
      register: (profile, x) => features.platform.register(body(profile, x)),
      import: (profile, x, y) =>
        features.platform.importChunk(profile, [body(profile, x), body(profile, y)]),
    };
    // The removals run on a second service over the same Cassandra, as another process would:
    // one process's write queue serializes its own writes to a grid, so only two processes can
    // interleave a registration's planner with a whole removal (removed-posts.ts).
    const other = new GridService({
      cql: cqlOf(f.client),
      config: f.config,
      ids: idsFromWorkers(7960, 10),
      cursorSecret: 'feature-tests-cursor-secret',
    });
    const removers: Record<string, (profile: bigint, x: bigint) => Promise<unknown>> = {
      takedown: (_profile, x) => other.takedown(x),
      delete: (profile, x) => other.deletePost(profile, x),
    };
    /** Resolves to whether `op` succeeded; only the refusals a race may cause are tolerated. */
    const settle = (wait: number, op: () => Promise<unknown>, refusals: string[]) =>
      sleep(wait)
        .then(op)
        .then(
          () => true,
          (err: unknown) => {
            if (!isDomainError(err) || !refusals.includes(err.code)) throw err;
            return false;
          },
        );
    const pairs = [
      ['register', 'takedown'],
      ['register', 'delete'],
      ['import', 'takedown'],
      ['import', 'delete'],
    ] as const;
    for (const [w, r] of pairs) {
      const outcomes = new Map<string, number>();
      for (let k = 0; k < 24; k++) {
        const where = `${w} ‖ ${r} #${k}`;
        const profile = freshProfile(f);
        profilesSeen.push(profile);
        const ms = Date.now() - 10_000 - k;
        const x = composeId({ ms, worker: 7950, sequence: platformSeq++ % 1024 });
        const y = composeId({ ms: ms - 1, worker: 7951, sequence: platformSeq++ % 1024 });
        // Half the rounds race a retry of a post already there, half its first arrival.
        const retry = k % 2 === 0;
        if (retry) await writers[w]!(profile, x, y);
        const lead = rng.int(10);
        const [writeWait, removeWait] = rng.next() < 0.5 ? [lead, 0] : [0, lead];
        const [wrote, removed] = await Promise.all([
          settle(writeWait, () => writers[w]!(profile, x, y), ['post_removed', 'conflict']),
          // Before the first arrival's body exists there is nothing to remove: 404.
          settle(removeWait, () => removers[r]!(profile, x), retry ? [] : ['post_not_found']),
        ]);
        const key = `${wrote ? 'written' : 'refused'}, ${removed ? 'removed' : 'not found'}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        // A removal that lost the race to the first arrival is done now: the post must go.
        if (!removed) await removers[r]!(profile, x);
        const order = await features.readOrder(profile);
        const shown = [...order.pinned, ...order.postIds];
        expect(shown, `${where}: the removed post is back`).not.toContain(x);
        expect((await features.listArchive(profile, 10)).items, where).toEqual([]);
        expect(await f.service.posts.getPost(x), `${where}: a body left`).toBeUndefined();
        expect(shown, where).toEqual(w === 'import' ? [y] : []);
        expect((await f.service.reader.readHead(profile)).postCount ?? 0n, where).toBe(
          BigInt(shown.length),
        );
        // Every later arrival is refused, and changes nothing.
        const v = (await f.service.reader.readHead(profile)).version;
        await expect(features.platform.register(body(profile, x)), where).rejects.toMatchObject({
          code: 'post_removed',
          details: { reason: r === 'takedown' ? 'taken_down' : 'deleted' },
        });
        const rerun = await features.platform.importChunk(profile, [body(profile, x)]);
        expect(rerun, where).toMatchObject({ imported: 0, removed: 1, bumped: false });
        expect((await f.service.reader.readHead(profile)).version, where).toBe(v);
        expect(await f.service.posts.getPost(x), `${where}: a body left`).toBeUndefined();
      }
      console.info(`${w} ‖ ${r}: ${JSON.stringify([...outcomes])}`);
    }
  }, 600_000);

  it('the audit finds nothing on the grids the races left', async () => {
    const findings = [];
    for await (const a of features.auditAll(profilesSeen)) findings.push(a);
    expect(findings).toEqual([]);
  }, 600_000);
});
