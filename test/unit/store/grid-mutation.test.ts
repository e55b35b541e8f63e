import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAS_VERSION,
  UPSERT_OVERRIDE,
  NO_PINS,
  buildCasStatements,
  decodePins,
  isTombstoneFree,
} from '../../../src/store/grid-mutation.js';

const P = 77n;

describe('buildCasStatements', () => {
  it('starts with the compare-and-set; an absent version (0) is a null CONDITION, not a write', () => {
    const [cas] = buildCasStatements(P, 0n, 1n, {});
    expect(cas).toEqual({ query: CAS_VERSION, params: [1n, P, null] });
    expect(buildCasStatements(P, 4n, 5n, {})[0]!.params).toEqual([5n, P, 4n]);
  });

  it('property: a move-shaped mutation never binds null anywhere but the CAS condition', () => {
    const upsert = fc.record(
      {
        postId: fc.bigInt(1n, 2n ** 63n - 1n),
        sortKey: fc.bigInt(1n, 2n ** 63n - 1n),
        movedVersion: fc.option(fc.bigInt(1n, 10n ** 9n), { nil: undefined }),
      },
      { requiredKeys: ['postId', 'sortKey'] },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(upsert, { selector: (u) => u.postId, maxLength: 40 }),
        fc.bigInt(0n, 10n ** 9n),
        (upserts, v) => {
          const mutation = { upserts };
          expect(isTombstoneFree(mutation)).toBe(true);
          const stmts = buildCasStatements(P, v, v + 1n, mutation);
          expect(stmts).toHaveLength(upserts.length + 1);
          for (const s of stmts.slice(1)) {
            expect(s.query).toBe(UPSERT_OVERRIDE);
            expect(s.query).not.toMatch(/DELETE/i);
            expect(s.params).not.toContain(null);
          }
          // A relabel (no movedVersion) binds `undefined` = unset, leaving moved_version alone.
          upserts.forEach((u, i) => expect(stmts[i + 1]!.params[1]).toBe(u.movedVersion));
        },
      ),
      { seed: 20261130, numRuns: 200 },
    );
  });

  it('statics and deletes only when asked; deletes mark the mutation as tombstone-writing', () => {
    const stmts = buildCasStatements(P, 1n, 2n, { statics: { pins: [] }, deleteRows: [9n] });
    expect(stmts.map((s) => s.query.split(' ')[0])).toEqual(['UPDATE', 'UPDATE', 'DELETE']);
    expect(stmts[1]!.params).toEqual([NO_PINS, P]); // an empty frozen list would be a tombstone
    expect(decodePins(NO_PINS)).toEqual([]);
    expect(decodePins(null)).toEqual([]);
    expect(decodePins([3n, 1n])).toEqual([3n, 1n]);
    expect(isTombstoneFree({ deleteRows: [9n] })).toBe(false);
    expect(isTombstoneFree({ clearOverrides: true })).toBe(false);
  });

  it('writes the post count only when set, as a plain non-null value; never negative', () => {
    expect(buildCasStatements(P, 1n, 2n, {})).toHaveLength(1);
    const stmts = buildCasStatements(P, 1n, 2n, { statics: { postCount: 0n } });
    expect(stmts).toHaveLength(2);
    expect(stmts[1]!.query).toMatch(/SET post_count = \?/);
    expect(stmts[1]!.params).toEqual([0n, P]);
    expect(() => buildCasStatements(P, 1n, 2n, { statics: { postCount: -1n } })).toThrow();
  });

  it('rejects batches that would lose a write to a same-timestamp delete, or go backwards', () => {
    expect(() =>
      buildCasStatements(P, 1n, 2n, { deleteRows: [3n], upserts: [{ postId: 3n, sortKey: 5n }] }),
    ).toThrow();
    expect(() =>
      buildCasStatements(P, 1n, 2n, {
        clearOverrides: true,
        upserts: [{ postId: 3n, sortKey: 5n }],
      }),
    ).toThrow();
    expect(() =>
      buildCasStatements(P, 1n, 2n, {
        upserts: [
          { postId: 3n, sortKey: 5n },
          { postId: 3n, sortKey: 6n },
        ],
      }),
    ).toThrow();
    expect(() => buildCasStatements(P, 2n, 2n, {})).toThrow(/grow/);
  });
});
