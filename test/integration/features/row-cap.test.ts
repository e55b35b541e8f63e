/**
 * The per-write row cap (MOVE_ROW_CAP, domain/keys.ts, placeCapped) in the running service, on real
 * Cassandra: moves hammered into one gap force relabels, and with a cap of 4 rows
 *   - no committed batch writes more than 4 override rows,
 *   - larger relabels are paid off in steps, each its own compare-and-set (versions in between),
 *   - the grid equals an array model after every move, and a stepped move's undo puts it back
 *     (the steps move only its neighbours' keys, never the moved post's).
 * Without the cap (the same moves, a cap of 4096) the same sequence writes relabels above 4 rows:
 * the test would fail if the cap were not applied.
 */
import { describe, expect, it } from 'vitest';
import type { CommitEvent } from '../../../src/service/write-line/write-line.js';
import { composeId } from '../../../src/domain/ids.js';
import { freshProfile, openFeatures, order, type Features } from './harness.js';

async function run(cap: string) {
  const f: Features = await openFeatures({ MOVE_ROW_CAP: cap, WRITE_GROUP_MAX_WRITES: '1' });
  const sizes: number[] = [];
  f.hooks.onCommitted = [(e: CommitEvent) => void sizes.push(e.mutation.upserts?.length ?? 0)];
  try {
    const p = freshProfile(f);
    // 40 posts with consecutive IDs (one millisecond, sequence 0..39): no gap between any two,
    // so a move between them needs a relabel that reaches beyond the run.
    const ms = Date.now() - 60_000;
    const posts = Array.from({ length: 40 }, (_, k) =>
      composeId({ ms, worker: 8000, sequence: k }),
    );
    for (const postId of posts) {
      const body = { postId, authorId: p, caption: undefined, mediaUrl: undefined };
      await f.service.posts.insertPost(
        { ...body, createdAt: new Date(ms), collaborators: [] },
        [p],
        undefined,
      );
    }
    let model = [...posts].reverse(); // display order, newest first
    const anchor = model[5]!;
    const movesBefore: number[] = [];
    for (let i = 0; i < 30; i++) {
      // Always the bottom post, right after the same anchor: every move halves one gap.
      const mover = model[model.length - 1]!;
      if (mover === anchor) break;
      movesBefore.push(sizes.length);
      const out = await f.service.move(p, mover, anchor);
      model = model.filter((x) => x !== mover);
      model.splice(model.indexOf(anchor) + 1, 0, mover);
      expect(await order(f, p), `after move ${i}`).toEqual(model);
      if (i === 20) expect((await f.service.undoMove(p, out.moveId)).version).toBeGreaterThan(0n);
      if (i === 20) {
        const undone = model.filter((x) => x !== mover);
        model = [...undone, mover]; // undo puts it back at the bottom, where it was
        expect(await order(f, p)).toEqual(model);
      }
    }
    const stepped = movesBefore.filter((at, i) => (movesBefore[i + 1] ?? sizes.length) - at > 1);
    return { maxRows: Math.max(...sizes), stepped: stepped.length, batches: sizes.length };
  } finally {
    await f.close();
  }
}

describe('MOVE_ROW_CAP', () => {
  it('no write of a move carries more rows than the cap; the order is right after every move', async () => {
    const capped = await run('4');
    const free = await run('4096');
    console.log(
      `[row cap] cap 4: max ${capped.maxRows} rows/batch, ${capped.stepped} moves in steps; cap 4096: max ${free.maxRows}`,
    );
    expect(free.maxRows).toBeGreaterThan(4); // the sequence does need relabels above the cap
    expect(capped.maxRows).toBeLessThanOrEqual(4);
    expect(capped.stepped).toBeGreaterThan(0);
  }, 300_000);
});
