/**
 * The exact per-grid post count (static `post_count`) on the real Cassandra: every
 * membership change adjusts it inside its own compare-and-set, moves never write it, a grid that
 * predates the column is counted once, and the cached summary and the page carry it.
 */
import { describe, expect, it } from 'vitest';
import type { CommitEvent } from '../../../src/service/write-line/write-line.js';
import { SimulatedCrash } from '../../../src/service/idempotency/idempotency.js';
import { freshProfile, httpApi, openFeatures, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

const features = () => f.service;
const countOf = async (p: bigint) => (await f.service.store.readHead(p)).postCount;

/** Commits seen while `run` executes (the mutations each batch wrote). */
async function commitsDuring(run: () => Promise<unknown>): Promise<CommitEvent[]> {
  const seen: CommitEvent[] = [];
  f.hooks.afterCas = (e) => {
    seen.push(e);
  };
  try {
    await run();
  } finally {
    delete f.hooks.afterCas;
  }
  return seen;
}

/** Rows written straight to the tables (as before the column existed), then a plain bump. */
async function legacyGrid(p: bigint, n: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const postId = f.ids.next();
    ids.push(postId);
    await f.service.posts.insertPost(
      {
        postId,
        authorId: p,
        caption: `legacy ${i}`,
        mediaUrl: undefined,
        createdAt: new Date(),
        collaborators: [],
      },
      [p],
      undefined,
    );
  }
  await f.service.writer.writeGrid(p, async () => ({ kind: 'write', mutation: {}, result: null }));
  return ids;
}

describe('post count', () => {
  it('counts new posts, deletes, archive and unarchive; moves and pins never write it', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 6);
    expect(await countOf(p)).toBe(6n);
    const fs = features();

    await f.service.deletePost(p, posts[0]!);
    expect(await countOf(p)).toBe(5n);
    await fs.archivePost(p, posts[1]!);
    expect(await countOf(p)).toBe(4n);
    await fs.unarchivePost(p, posts[1]!, 'previous');
    expect(await countOf(p)).toBe(5n);

    const others = await commitsDuring(async () => {
      await f.service.move(p, posts[2]!, null);
      await f.service.move(p, posts[5]!, posts[2]!);
      await fs.setPins(p, [posts[3]!]);
      await fs.setPins(p, []);
      await fs.reset(p);
    });
    expect(others).toHaveLength(5);
    for (const e of others) expect(e.mutation.statics?.postCount).toBeUndefined();
    expect(await countOf(p)).toBe(5n);

    const page = await f.service.pages.page({ profileId: p, limit: 2 });
    expect(page.postCount).toBe(5n);
    const reply = await httpApi(f).call('GET', `/v1/profiles/${p}/grid?limit=2`);
    expect(reply.status).toBe(200);
    expect(reply.json.post_count).toBe('5');
  });

  it('counts collaborator grids: join, removal and takedown', async () => {
    const author = freshProfile(f);
    const c1 = freshProfile(f);
    const c2 = freshProfile(f);
    const fs = features();
    await seed(f, c1, 2);
    const a = await fs.createPost(author, { caption: 'a', collaborators: [c1, c2] });
    const b = await fs.createPost(author, { caption: 'b', collaborators: [c1] });
    // Invitations change no grid's membership until they are accepted.
    expect([await countOf(author), await countOf(c1), await countOf(c2)]).toEqual([
      2n,
      2n,
      undefined,
    ]);
    await fs.acceptInvite(c1, a.value.postId);
    await fs.acceptInvite(c1, b.value.postId);
    await fs.acceptInvite(c2, a.value.postId);
    expect([await countOf(author), await countOf(c1), await countOf(c2)]).toEqual([2n, 4n, 1n]);

    await fs.removeCollaborator(c2, a.value.postId, c2); // c2 leaves
    expect(await countOf(c2)).toBe(0n);
    await fs.removeCollaborator(author, b.value.postId, c1); // the author removes c1
    expect(await countOf(c1)).toBe(3n);
    await fs.takedown(a.value.postId);
    expect([await countOf(author), await countOf(c1), await countOf(c2)]).toEqual([1n, 2n, 0n]);
  });

  it('counts a grid that predates the column once, on its first membership change', async () => {
    const p = freshProfile(f);
    const legacy = await legacyGrid(p, 4);
    expect(await countOf(p)).toBeUndefined();
    await f.service.move(p, legacy[0]!, null); // a move does not count it
    expect(await countOf(p)).toBeUndefined();
    await seed(f, p, 1);
    expect(await countOf(p)).toBe(5n);
    await f.service.deletePost(p, legacy[1]!);
    expect(await countOf(p)).toBe(4n);
  });

  it('a delete that dies between its commit and its effects is finished by the next reader', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 3);
    f.hooks.afterCas = () => {
      throw new SimulatedCrash('after the CAS, before the membership effects');
    };
    try {
      await expect(f.service.deletePost(p, posts[0]!)).rejects.toThrow(SimulatedCrash);
    } finally {
      delete f.hooks.afterCas;
    }
    // The row is still in grid_posts, but the committed head says it left: readers roll forward.
    expect(await f.service.store.hasGridRow(p, posts[0]!)).toBe(true);
    const page = await f.service.pages.page({ profileId: p, limit: 10 });
    expect(page.entries.map((e) => e.postId)).toEqual([posts[2], posts[1]]);
    expect(page.postCount).toBe(2n);
    expect(await f.service.store.hasGridRow(p, posts[0]!)).toBe(false);
  });
});
