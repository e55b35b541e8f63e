import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  auditGrid,
  compareWithChronological,
  describeFinding,
  findDuplicateKeys,
  findOrphans,
  isChronological,
} from '../../../src/domain/audit.js';

describe('audit: duplicate effective keys', () => {
  it('flags two unpinned posts that share an effective key', () => {
    const grid = { postIds: [10n, 20n, 30n], overrides: [{ postId: 10n, key: 30n }], pins: [] };
    expect(findDuplicateKeys(grid)).toEqual([
      { kind: 'duplicate_key', key: 30n, postIds: [30n, 10n] },
    ]);
  });

  it('ignores pinned rows, which relabels skip', () => {
    const grid = { postIds: [10n, 20n, 30n], overrides: [{ postId: 10n, key: 30n }], pins: [30n] };
    expect(findDuplicateKeys(grid)).toEqual([]);
  });

  it('ignores overrides of posts not on the grid (those are orphans, not duplicates)', () => {
    const grid = { postIds: [20n, 30n], overrides: [{ postId: 10n, key: 30n }], pins: [] };
    expect(findDuplicateKeys(grid)).toEqual([]);
    expect(findOrphans(grid)).toEqual([{ kind: 'orphan_override', postId: 10n }]);
  });

  it('finds no duplicates when every key is distinct (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.bigInt({ min: 1n, max: 1n << 40n }), { minLength: 1 }),
        (ids) => {
          // Give every other post an override with a key no post ID uses (ids are < 2^40).
          const overrides = ids
            .filter((_, i) => i % 2 === 0)
            .map((postId, i) => ({ postId, key: (1n << 41n) + BigInt(i) }));
          return auditGrid({ postIds: ids, overrides, pins: [] }).length === 0;
        },
      ),
      { seed: 3, numRuns: 200 },
    );
  });
});

describe('audit: orphans and the chronological check', () => {
  it('flags pins not on the grid', () => {
    expect(findOrphans({ postIds: [1n], overrides: [], pins: [2n] })).toEqual([
      { kind: 'orphan_pin', postId: 2n },
    ]);
  });

  it('reports the first index where merged and chronological reads differ', () => {
    expect(compareWithChronological([3n, 2n, 1n], [3n, 2n, 1n])).toEqual([]);
    expect(compareWithChronological([3n, 1n, 2n], [3n, 2n, 1n])).toEqual([
      { kind: 'merged_mismatch', index: 1, merged: 1n, chronological: 2n },
    ]);
    expect(compareWithChronological([3n], [3n, 2n])[0]).toMatchObject({
      index: 1,
      merged: undefined,
    });
  });

  it('applies the chronological check only to grids without overrides or pins', () => {
    expect(isChronological({ postIds: [1n], overrides: [], pins: [] })).toBe(true);
    expect(isChronological({ postIds: [1n], overrides: [], pins: [1n] })).toBe(false);
  });

  it('describes every kind of finding on one line', () => {
    const lines = [
      describeFinding({ kind: 'duplicate_key', key: 5n, postIds: [6n, 5n] }),
      describeFinding({ kind: 'orphan_override', postId: 7n }),
      describeFinding({ kind: 'orphan_pin', postId: 8n }),
      describeFinding({ kind: 'merged_mismatch', index: 0, merged: undefined, chronological: 9n }),
    ];
    expect(lines.every((l) => l.length > 0 && !l.includes('\n'))).toBe(true);
    expect(lines[0]).toContain('6, 5');
  });
});

describe('audit: post count', () => {
  it('flags a stored count that differs from the rows, and only then', () => {
    const grid = { postIds: [3n, 2n, 1n], overrides: [], pins: [] };
    expect(auditGrid({ ...grid, postCount: 3n })).toEqual([]);
    expect(auditGrid({ ...grid, postCount: undefined })).toEqual([]);
    expect(auditGrid({ ...grid, postCount: 6n })).toEqual([
      { kind: 'wrong_post_count', stored: 6n, actual: 3n },
    ]);
    expect(describeFinding({ kind: 'wrong_post_count', stored: 6n, actual: 3n })).toContain('6');
    expect(describeFinding({ kind: 'orphan_post', postId: 5n, authorId: 9n })).toContain('5');
  });
});
