import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OverrideRow } from '../../../src/domain/grid-head.js';
import { compareDisplay } from '../../../src/domain/merge.js';
import { overridesAfter, type OverrideChanges } from '../../../src/domain/override-list.js';

const id = fc.bigInt({ min: 1n, max: 40n });
const row = fc.record({
  postId: id,
  key: fc.bigInt({ min: 1n, max: 1000n }),
  movedVersion: fc.option(fc.bigInt({ min: 1n, max: 9n }), { nil: undefined }),
});
const rows = fc
  .uniqueArray(row, { selector: (r) => r.postId, maxLength: 25 })
  .map((rs) => [...rs].sort((a, b) => compareDisplay(b, a)) as OverrideRow[]);
const changes: fc.Arbitrary<OverrideChanges> = fc
  .record({
    upserts: fc.uniqueArray(
      fc.record({
        postId: id,
        sortKey: fc.bigInt({ min: 1n, max: 1000n }),
        movedVersion: fc.option(fc.bigInt({ min: 10n, max: 20n }), { nil: undefined }),
      }),
      { selector: (u) => u.postId, maxLength: 6 },
    ),
    deleteRows: fc.uniqueArray(id, { maxLength: 4 }),
    clearOverrides: fc.boolean(),
  })
  // The batch never deletes and writes one row, and a clear goes with no upserts.
  .map((c) => ({
    ...c,
    deleteRows: c.deleteRows.filter((d) => !c.upserts.some((u) => u.postId === d)),
    upserts: c.clearOverrides ? [] : c.upserts,
  }));

/** The batch's semantics spelled out (a map of rows, then sorted): what the linear merge must equal. */
function model(before: readonly OverrideRow[], c: OverrideChanges): OverrideRow[] {
  const rows = new Map<bigint, OverrideRow>();
  if (!c.clearOverrides) for (const r of before) rows.set(r.postId, r);
  for (const postId of c.deleteRows ?? []) rows.delete(postId);
  for (const u of c.upserts ?? []) {
    const movedVersion = u.movedVersion ?? rows.get(u.postId)?.movedVersion;
    rows.set(u.postId, { postId: u.postId, key: u.sortKey, movedVersion });
  }
  return [...rows.values()].sort((a, b) => compareDisplay(b, a));
}

describe('overridesAfter', () => {
  it('equals the batch model, also with repeated upserts of one post and unconstrained changes', () => {
    const loose = fc.record({
      upserts: fc.array(
        fc.record({
          postId: id,
          sortKey: fc.bigInt({ min: 1n, max: 1000n }),
          movedVersion: fc.option(fc.bigInt({ min: 10n, max: 20n }), { nil: undefined }),
        }),
        { maxLength: 8 },
      ),
      deleteRows: fc.array(id, { maxLength: 5 }),
      clearOverrides: fc.boolean(),
    });
    fc.assert(
      fc.property(rows, loose, (before, c) => {
        expect(overridesAfter(before, c)).toEqual(model(before, c));
      }),
    );
  });

  it('keeps display order, applies every change and leaves other rows as they were', () => {
    fc.assert(
      fc.property(rows, changes, (before, c) => {
        const after = overridesAfter(before, c);
        for (let i = 1; i < after.length; i++) {
          expect(compareDisplay(after[i - 1]!, after[i]!)).toBeGreaterThan(0);
        }
        const byId = new Map(after.map((r) => [r.postId, r]));
        expect(byId.size).toBe(after.length);
        for (const u of c.upserts ?? []) {
          const prev = before.find((r) => r.postId === u.postId);
          expect(byId.get(u.postId)).toEqual({
            postId: u.postId,
            key: u.sortKey,
            movedVersion: u.movedVersion ?? (c.clearOverrides ? undefined : prev?.movedVersion),
          });
        }
        for (const d of c.deleteRows ?? []) expect(byId.has(d)).toBe(false);
        const touched = new Set([
          ...(c.upserts ?? []).map((u) => u.postId),
          ...(c.deleteRows ?? []),
        ]);
        const untouched = before.filter((r) => !touched.has(r.postId));
        expect(after.filter((r) => !touched.has(r.postId))).toEqual(
          c.clearOverrides ? [] : untouched,
        );
      }),
    );
  });
});
