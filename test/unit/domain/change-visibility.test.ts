/**
 * The public form of change records (domain/change-visibility.ts): no private kind, no post
 * named by a removal, and an archive read exactly as a deletion, a takedown or a collaborator
 * leaving, whatever the record held.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANGE_KINDS, type ChangeRecord } from '../../../src/domain/change-log.js';
import { PUBLIC_CHANGE_KINDS, publicChange } from '../../../src/domain/change-visibility.js';

const record = (kind: ChangeRecord['kind'], postIds: bigint[]): ChangeRecord => ({
  version: 7n,
  generation: 1n,
  at: 1_700_000_000_000,
  kind,
  postIds,
});

describe('publicChange', () => {
  it('keeps the version, uses public kinds only, and names posts only where the grid shows them', () => {
    const ids = fc.array(fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }), { maxLength: 4 });
    fc.assert(
      fc.property(fc.constantFrom(...CHANGE_KINDS), ids, (kind, postIds) => {
        const out = publicChange(record(kind, postIds));
        expect(PUBLIC_CHANGE_KINDS).toContain(out.kind);
        expect([out.version, out.generation, out.at]).toEqual([7n, 1n, 1_700_000_000_000]);
        if (out.kind === 'removed' || out.kind === 'changed') expect(out.postIds).toEqual([]);
        else expect(out.postIds).toEqual(postIds);
      }),
    );
  });

  it('reads every way off the grid the same, and every way onto it as an addition', () => {
    const off = ['archived', 'deleted', 'taken_down', 'collaborator_left', 'collaborator_removed'];
    const views = off.map((k) => publicChange(record(k as ChangeRecord['kind'], [42n])));
    for (const v of views) expect(v).toEqual(views[0]);
    expect(views[0]).toMatchObject({ kind: 'removed', postIds: [] });
    for (const k of ['created', 'registered', 'imported', 'unarchived', 'collaborator_accepted']) {
      expect(publicChange(record(k as ChangeRecord['kind'], [42n]))).toMatchObject({
        kind: 'added',
        postIds: [42n],
      });
    }
    expect(publicChange(record('collaborator_declined', [42n]))).toMatchObject({
      kind: 'changed',
      postIds: [],
    });
  });
});
