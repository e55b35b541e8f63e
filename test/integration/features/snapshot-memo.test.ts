/**
 * The snapshot memo (store/snapshot-memo.ts): a move on a grid with many overrides that this
 * process committed last reads the partition's static row only, never the override rows; a
 * commit from another process (another GridService) makes the next snapshot read every row
 * again; and the orders both processes see stay identical.
 */
import { describe, expect, it } from 'vitest';
import { countingService as counting, overrideReadsOf } from './counting.js';
import { freshProfile, openFeatures, order, seed, type Features } from './harness.js';
import { openPerFile } from '../support/per-file.js';

let f: Features;
openPerFile(openFeatures, (opened) => (f = opened));

/**
 * Carrying state across an idle line is off, so every move after a pause takes a snapshot: this
 * file is about that snapshot (carried-state.test.ts is about skipping it).
 */
function countingService(workers: number) {
  const c = counting(f, workers, { WRITE_CARRY_IDLE_MS: 0 });
  const overrideReads = async (run: () => Promise<unknown>) => overrideReadsOf(await c.sent(run));
  return { service: c.service, overrideReads };
}

describe('snapshot memo', () => {
  it('a move on a grid with 300 overrides reads only the static row when this process wrote last', async () => {
    const p = freshProfile(f);
    const posts = await seed(f, p, 300);
    // Every post overridden (the reverse of chronological), committed by the feature service.
    const { etag } = await f.service.readOrder(p);
    await f.service.patchOrder(p, etag, { postIds: posts });
    const a = countingService(7300);
    const b = countingService(7310);
    // A's first move: A never committed this state, so it reads every row.
    const first = await a.overrideReads(() => a.service.move(p, posts[10]!, null));
    expect(first.some((q) => q.includes('sort_key'))).toBe(true);
    // A's next moves: the state is A's own: at most its static row is read (a move right after
    // A's last batch starts from the state that batch left and reads nothing), never the rows.
    for (const post of [posts[20]!, posts[30]!]) {
      const reads = await a.overrideReads(() => a.service.move(p, post, posts[10]!));
      expect(reads.length).toBeLessThanOrEqual(1);
      for (const q of reads) expect(q).toMatch(/LIMIT 1$/);
    }
    // After a pause (no carried state here), the snapshot is the static row alone.
    await new Promise((r) => setTimeout(r, 300));
    const later = await a.overrideReads(() => a.service.move(p, posts[60]!, posts[10]!));
    expect(later).toHaveLength(1);
    expect(later[0]).toMatch(/LIMIT 1$/);
    // Another process commits: A's next snapshot reads the rows again.
    await b.service.move(p, posts[40]!, null);
    const after = await a.overrideReads(() => a.service.move(p, posts[50]!, posts[40]!));
    expect(after.some((q) => q.includes('sort_key'))).toBe(true);
    // Both processes, and the feature service, see one and the same order.
    const want = await order(f, p, 400);
    expect(want.slice(0, 5)).toEqual([posts[40], posts[50], posts[10], posts[60], posts[30]]);
    expect(new Set(want).size).toBe(300);
  });
});
