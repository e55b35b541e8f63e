/**
 * What a page may conclude from the stamps of the grid_posts pages it merged (grid-head.ts
 * `rowsVerdict`) and from two heads (`sameMembership`), checked against a model: a grid's
 * membership records are applied in version order, each stamping the rows it leaves; a page
 * merged with head `h` shows exactly h's posts iff every page it read carries h's record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsVerdict, sameMembership, type GridHead } from '../../../src/domain/grid-head.js';

const head = (version: bigint, membershipVersion?: bigint, generation = 1n): GridHead => ({
  version,
  generation,
  pins: [],
  membershipVersion,
});

describe('rowsVerdict', () => {
  it('exact only when every page read carries the head’s record; newer names the newest', () => {
    // records: strictly increasing versions; the head saw record `seen`; the pages read carry
    // records applied at or after it (a record is applied only after the one before it).
    const scenario = fc
      .record({
        records: fc.uniqueArray(fc.bigInt({ min: 1n, max: 500n }), { minLength: 1, maxLength: 8 }),
        pages: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        seenAt: fc.nat(),
      })
      .map(({ records, pages, seenAt }) => {
        const sorted = [...records].sort((a, b) => (a < b ? -1 : 1));
        const seen = seenAt % sorted.length;
        // pages are read in order, so their records never go back
        const offsets = pages.map((p) => seen + (p % (sorted.length - seen))).sort((a, b) => a - b);
        return { seen: sorted[seen]!, stamps: offsets.map((i) => sorted[i]!) };
      });
    fc.assert(
      fc.property(scenario, ({ seen, stamps }) => {
        const v = rowsVerdict(stamps, head(seen + 3n, seen));
        const newest = stamps[stamps.length - 1]!;
        if (newest === seen) expect(v).toEqual({ kind: 'exact' });
        else expect(v).toEqual({ kind: 'newer', version: newest });
      }),
      { seed: 22, numRuns: 500 },
    );
  });

  it('cannot tell without rows, without the head’s record, or from rows never stamped', () => {
    expect(rowsVerdict([], head(4n, 2n))).toEqual({ kind: 'unknown' });
    expect(rowsVerdict([2n], head(4n))).toEqual({ kind: 'unknown' });
    expect(rowsVerdict([null], head(4n, 2n))).toEqual({ kind: 'unknown' });
    expect(rowsVerdict([1n], head(4n, 2n))).toEqual({ kind: 'unknown' }); // stamped before 2 was
    // never changed through a record, never stamped: the rows are as written
    expect(rowsVerdict([null, null], head(4n, 0n))).toEqual({ kind: 'exact' });
    expect(rowsVerdict([null, 3n], head(4n, 0n))).toEqual({ kind: 'newer', version: 3n });
  });
});

describe('sameMembership', () => {
  it('compares the last membership record, or the version when a head does not know it', () => {
    expect(sameMembership(head(5n, 3n), head(9n, 3n))).toBe(true); // moves since: same posts
    expect(sameMembership(head(5n, 3n), head(6n, 6n))).toBe(false);
    expect(sameMembership(head(5n, 3n, 1n), head(5n, 3n, 2n))).toBe(false);
    expect(sameMembership(head(5n), head(5n, 3n))).toBe(true);
    expect(sameMembership(head(5n), head(6n, 3n))).toBe(false);
  });
});
