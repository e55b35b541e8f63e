import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketsWritten,
  findUndo,
  pushUndo,
  UNDO_BUCKET_VERSIONS,
  UNDO_BUCKETS,
  UNDO_RING_VERSIONS,
  undoBucket,
  type UndoEntry,
} from '../../../src/domain/undo-ring.js';
import {
  decodeUndoBuckets,
  decodeUndoRing,
  encodeUndoRing,
} from '../../../src/store/undo-ring-codec.js';

const RING_MAX = UNDO_BUCKETS * UNDO_BUCKET_VERSIONS;

const int64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
const entry: fc.Arbitrary<UndoEntry> = fc.record({
  moveId: fc.uuid().map((u) => u.toLowerCase()),
  postId: int64,
  prevKey: fc.option(int64, { nil: undefined }),
  prevAfter: fc.option(int64, { nil: undefined }),
  version: fc.bigInt({ min: 1n, max: (1n << 63n) - 1n }),
  relabelled: fc.integer({ min: -1, max: 1000 }),
  at: fc.integer({ min: 0, max: 2 ** 45 }),
});

describe('undo ring', () => {
  it('survives its stored form unchanged', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: RING_MAX }), (ring) => {
        expect(decodeUndoRing(encodeUndoRing(ring))).toEqual(ring);
      }),
    );
  });

  it('a ring re-encoded after a push has the bytes of the same ring encoded afresh', () => {
    // Entries' bytes are kept per entry object: reusing them must never change the stored form.
    fc.assert(
      fc.property(fc.array(entry, { maxLength: RING_MAX }), entry, (ring, next) => {
        encodeUndoRing(ring);
        const pushed = pushUndo(ring, next, { now: 0, ttlMs: 2 ** 46 });
        const fresh = pushed.map((e) => ({ ...e }));
        expect(encodeUndoRing(pushed).equals(encodeUndoRing(fresh))).toBe(true);
        expect(decodeUndoRing(encodeUndoRing(pushed))).toEqual(pushed);
      }),
    );
  });

  it('a missing or foreign cell reads as an empty ring', () => {
    expect(decodeUndoRing(null)).toEqual([]);
    expect(decodeUndoRing(Buffer.from([9, 1, 2]))).toEqual([]);
  });

  it('rewriting only the buckets a batch commits keeps in storage exactly the ring in memory', () => {
    // Moves commit increasing versions (gaps: versions other writes took); a batch commits one
    // or several moves (a group). The cells written are the only storage there is.
    const batch = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(batch, { maxLength: 40 }), fc.uuid(), (batches, seed) => {
        const ttlMs = 2 ** 40;
        const cells: unknown[] = Array.from({ length: UNDO_BUCKETS }, () => null);
        let ring: UndoEntry[] = [];
        let version = 0n;
        const all: UndoEntry[] = [];
        for (const [n, steps] of batches.entries()) {
          const from = version;
          for (const [i, step] of steps.entries()) {
            version += BigInt(step);
            const e = { ...sample(seed, all.length), version, at: n * 10 + i };
            all.push(e);
            ring = pushUndo(ring, e, { now: e.at, ttlMs });
          }
          for (const [b, entries] of bucketsWritten(ring, from, version))
            cells[b] = encodeUndoRing(entries);
          const stored = decodeUndoBuckets(cells);
          expect(stored).toEqual([...ring].sort((a, b) => (a.version < b.version ? 1 : -1)));
        }
        // Every move of the last UNDO_RING_VERSIONS versions is there, and found by its id.
        expect(ring.length).toBeLessThanOrEqual(UNDO_BUCKETS * UNDO_BUCKET_VERSIONS);
        for (const e of all) {
          const found = findUndo(ring, e.moveId.toUpperCase(), { now: 1e9, ttlMs });
          if (e.version > version - BigInt(UNDO_RING_VERSIONS)) expect(found).toEqual(e);
          if (found) expect(found).toEqual(e);
        }
      }),
    );
  });

  it('puts a version in bucket (version / 8) mod 5 over the whole version range', () => {
    const version = fc.oneof(
      fc.bigInt({ min: 1n, max: (1n << 63n) - 1n }),
      fc.bigInt({ min: (1n << 53n) - 100n, max: (1n << 53n) + 100n }),
    );
    fc.assert(
      fc.property(version, (v) => {
        expect(undoBucket(v)).toBe(
          Number((v / BigInt(UNDO_BUCKET_VERSIONS)) % BigInt(UNDO_BUCKETS)),
        );
      }),
    );
  });

  it('drops expired entries and the earlier entry of a re-planned move', () => {
    const e1 = { ...sample('a', 1), version: 1n, at: 0 };
    const e2 = { ...sample('a', 2), version: 2n, at: 100 };
    const again = { ...e1, version: 3n, at: 200 };
    let ring = pushUndo([], e1, { now: 0, ttlMs: 150 });
    ring = pushUndo(ring, e2, { now: 100, ttlMs: 150 });
    expect(ring).toEqual([e2, e1]);
    expect(pushUndo(ring, again, { now: 200, ttlMs: 150 })).toEqual([again, e2]);
    expect(pushUndo(ring, again, { now: 260, ttlMs: 150 })).toEqual([again]);
    expect(findUndo([e1, { ...e1, version: 9n }], e1.moveId, { now: 0, ttlMs: 150 })?.version).toBe(
      9n,
    );
  });
});

/** A distinct move (its id from `seed` and `n`), at version 0: tests set version and time. */
function sample(seed: string, n: number): UndoEntry {
  const hex = (n.toString(16).padStart(8, '0') + seed.replace(/[^0-9a-f]/g, ''))
    .padEnd(32, '0')
    .slice(0, 32);
  const moveId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return {
    moveId,
    postId: BigInt(n + 1),
    prevKey: undefined,
    prevAfter: BigInt(n),
    version: 0n,
    relabelled: 0,
    at: 0,
  };
}
