/**
 * Concurrent writers and readers on one grid, against the real Cassandra:
 * - several clients (separate services, separate ID workers) move the same post at once: every
 *   post is still on the grid exactly once, and the version counts exactly the committed moves;
 * - a reader pages through the grid while another client keeps moving posts between its pages:
 *   no post that was not moved is skipped or repeated (keyset cursor, design §6.1);
 * - a new post on a worker whose clock is behind still lands on top (override path, §3.3).
 */
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import { IdGenerator } from '../../../src/domain/ids.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import {
  CURSOR_SECRET,
  call,
  openCore,
  randomProfile,
  readAll,
  seedGrid,
  tokenFor,
  type Core,
} from './harness.js';
import { openPerFile } from '../support/per-file.js';

let core: Core;
openPerFile(openCore, (opened) => (core = opened));

const otherServer = (worker: number, now?: () => number) =>
  new GridService({
    cql: cqlOf(core.client),
    config: core.config,
    ids: new IdGenerator(worker, now),
    cursorSecret: CURSOR_SECRET,
  });

describe('concurrency', () => {
  it('16 writers on one grid in one process take turns: no contention 503, one version per move', async () => {
    const me = randomProfile();
    const ids = await seedGrid(core, me, 24);
    const svc = otherServer(core.ids.worker + 520);
    const start = (await svc.readHead(me)).version;
    const versions: bigint[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let round = 0; round < 3; round++) {
          const post = ids[(w * 3 + round) % ids.length]!;
          const after = round % 2 === 0 ? null : ids[(w + 5) % ids.length]!;
          if (after === post) continue;
          versions.push((await svc.move(me, post, after)).version);
        }
      }),
    );
    // Every move committed (no 503), each with its own version, and nothing else bumped it.
    expect(new Set(versions).size).toBe(versions.length);
    expect((await svc.readHead(me)).version).toBe(start + BigInt(versions.length));
    const all = await readAll(svc, me);
    expect([...all].sort()).toEqual([...ids].sort());
  });

  it('clients moving the same post concurrently: every post stays exactly once', async () => {
    const me = randomProfile();
    const ids = await seedGrid(core, me, 30);
    const start = (await core.service.pages.page({ profileId: me, limit: 1 })).version;
    const target = ids[15]!;
    const clients = [0, 1, 2, 3, 4].map((i) => otherServer(core.ids.worker + 500 + i));
    let committed = 0;
    let contention = 0;
    await Promise.all(
      clients.map(async (svc, c) => {
        for (let round = 0; round < 4; round++) {
          const anchors = [null, ids[0]!, ids[7]!, ids[22]!, ids[29]!];
          try {
            await svc.move(me, target, anchors[(c + round) % anchors.length]!);
            committed += 1;
          } catch (err) {
            if (isDomainError(err) && err.code === 'contention') contention += 1;
            else throw err;
          }
        }
      }),
    );
    expect(committed + contention).toBe(20);
    expect(committed).toBeGreaterThan(0);

    const grid = await readAll(core.service, me, 7);
    expect(grid).toHaveLength(30);
    expect(new Set(grid)).toEqual(new Set(ids));
    const end = (await core.service.pages.page({ profileId: me, limit: 1 })).version;
    expect(end - start).toBe(BigInt(committed)); // one version per committed move, no lost bump
  });

  it('paging while another client moves posts: no unmoved post skipped or repeated', async () => {
    const me = randomProfile();
    const token = await tokenFor(me);
    const ids = (await seedGrid(core, me, 48)).map(String);
    const movers = new Set(ids.filter((_, i) => i % 6 === 2)); // 8 posts that get moved
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let changedFlags = 0;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const page = await call(core, 'GET', `/v1/profiles/${me}/grid?limit=5${q}`);
      expect(page.status).toBe(200);
      seen.push(...page.json.items.map((i: { id: string }) => i.id));
      if (page.json.grid_changed) changedFlags += 1;
      cursor = page.json.next_cursor;
      pages += 1;
      // Between pages, the other client moves two of the movers anywhere (top included).
      for (let k = 0; k < 2; k++) {
        const post = [...movers][rnd(movers.size)]!;
        const pick = rnd(ids.length + 4);
        const after = pick >= ids.length ? null : ids[pick]!;
        if (after === post) continue;
        const m = await call(core, 'POST', '/v1/me/grid/moves', {
          token,
          body: { post_id: post, after },
        });
        expect(m.status).toBe(200);
      }
    } while (cursor && pages < 40);

    expect(pages).toBeGreaterThan(8);
    expect(changedFlags).toBeGreaterThan(0); // the reader was told the grid changed under it
    const unmoved = ids.filter((id) => !movers.has(id));
    for (const id of unmoved) {
      expect(
        seen.filter((s) => s === id),
        `post ${id}`,
      ).toHaveLength(1);
    }
    // Moved posts may be seen twice or not at all; nothing foreign ever appears.
    for (const id of seen) expect(ids).toContain(id);
  });

  it('a new post from a worker whose clock lags still lands on top (override path)', async () => {
    const me = randomProfile();
    const ids = await seedGrid(core, me, 5);
    // This server's move to the top takes its ceiling from the current clock ...
    await core.service.move(me, ids[4]!, null);
    // ... and a server 5 min behind then creates a post whose ID is below that key (the key
    // lies between the newest seeded post, 1 min old, and now).
    const lagging = otherServer(core.ids.worker + 600, () => Date.now() - 300_000);
    const created = await lagging.createPost(me, { caption: 'late clock' });
    const snapshot = await core.service.store.readOverrides(me);
    const override = snapshot.overrides.find((o) => o.postId === created.value.postId);
    expect(override).toBeDefined(); // it needed a key: its ID is below the moved post's key
    expect(override!.movedVersion).toBe(created.version);
    const grid = await readAll(core.service, me);
    expect(grid[0]).toBe(created.value.postId);
    expect(grid[1]).toBe(ids[4]);
    expect(grid).toHaveLength(6);
  });
});
