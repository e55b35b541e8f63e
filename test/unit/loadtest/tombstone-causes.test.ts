import { describe, expect, it } from 'vitest';
import type { GridModel } from '../../../tools/loadtest/grid-model.js';
import { newMixLog } from '../../../tools/loadtest/mixed-history.js';
import { removedPosts } from '../../../tools/loadtest/tombstone-causes.js';

const grid = (): GridModel => {
  const g = { profileId: 7n, posts: [1n, 2n, 3n, 4n] } as unknown as GridModel;
  g.mix = newMixLog(g.posts);
  return g;
};

describe('removedPosts', () => {
  it('names acknowledged deletes and archives, a delete winning over an archive', () => {
    const g = grid();
    g.mix!.acks.push(
      { kind: 'archive', postId: 1n, version: 2n, seq: 1 } as never,
      { kind: 'delete', postId: 1n, version: 3n, seq: 2 } as never,
      { kind: 'archive', postId: 2n, version: 4n, seq: 3 } as never,
    );
    expect([...removedPosts(g)]).toEqual([
      [1n, 'delete'],
      [2n, 'archive'],
    ]);
  });

  it('counts a removal of unknown outcome as the removal of its post, an acknowledged one first', () => {
    const g = grid();
    g.mix!.maybeRemoved.set(3n, 'archive');
    g.mix!.maybeRemoved.set(4n, 'archive');
    g.mix!.acks.push({ kind: 'delete', postId: 4n, version: 5n, seq: 1 } as never);
    const removed = removedPosts(g);
    expect(removed.get(3n)).toBe('archive');
    expect(removed.get(4n)).toBe('delete');
    expect(removed.has(1n)).toBe(false);
  });
});
