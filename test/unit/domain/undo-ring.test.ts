import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findUndo,
  pushUndo,
  UNDO_RING_SIZE,
  type UndoEntry,
} from '../../../src/domain/undo-ring.js';
import { decodeUndoRing, encodeUndoRing } from '../../../src/store/undo-ring-codec.js';

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
      fc.property(fc.array(entry, { maxLength: UNDO_RING_SIZE }), (ring) => {
        expect(decodeUndoRing(encodeUndoRing(ring))).toEqual(ring);
      }),
    );
  });

  it('a ring re-encoded after a push has the bytes of the same ring encoded afresh', () => {
    // Entries' bytes are kept per entry object: reusing them must never change the stored form.
    fc.assert(
      fc.property(fc.array(entry, { maxLength: UNDO_RING_SIZE }), entry, (ring, next) => {
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

  it('keeps the newest entries, one per move, none expired, at most the bound', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 80 }),
        fc.integer({ min: 1, max: 40 }),
        (unordered, size) => {
          // Moves are pushed as time goes on: each at its own planning time.
          const pushes = [...unordered].sort((a, b) => a.at - b.at);
          const ttlMs = 2 ** 40;
          let ring: UndoEntry[] = [];
          for (const e of pushes) ring = pushUndo(ring, e, { now: e.at, ttlMs, size });
          const now = pushes.at(-1)?.at ?? 0;
          expect(ring.length).toBeLessThanOrEqual(size);
          expect(new Set(ring.map((e) => e.moveId)).size).toBe(ring.length);
          for (const e of ring.slice(1)) expect(e.at + ttlMs).toBeGreaterThan(ring[0]!.at);
          if (pushes.length) expect(ring[0]).toEqual(pushes.at(-1)); // newest first
          // Each move the ring holds is its latest push; findUndo finds exactly the live ones.
          for (const e of ring) {
            const latest = pushes.filter((x) => x.moveId === e.moveId).at(-1);
            expect(e).toEqual(latest);
            const found = findUndo(ring, e.moveId.toUpperCase(), { now, ttlMs });
            expect(found).toEqual(e.at + ttlMs > now ? e : undefined);
          }
        },
      ),
    );
  });
});
