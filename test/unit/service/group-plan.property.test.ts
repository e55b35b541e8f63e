/**
 * The pure parts of a group commit (service/write/group-plan.ts): a group's mutations merged
 * into one batch leave exactly the state of applying them one after another (the virtual
 * snapshots the group is planned on), whatever the order of equal rows; what commits alone; and
 * the bounds of one group.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OverrideRow } from '../../../src/domain/grid-head.js';
import { compareDisplay } from '../../../src/domain/merge.js';
import { overridesAfter } from '../../../src/domain/override-list.js';
import { RING_SIZE, type RingEntry } from '../../../src/domain/request-ring.js';
import {
  commitsAlone,
  estimateBytes,
  BatchLimits as GroupTally,
  mergeMutations,
  snapshotAfter,
} from '../../../src/service/write-line/batch.js';
import { buildCasStatements, type GridMutation } from '../../../src/store/grid-mutation.js';
import { EMPTY_HEAD, type OverridesSnapshot } from '../../../src/store/grid-store.js';

const id = fc.bigInt({ min: 1n, max: 30n });
const key = fc.bigInt({ min: 1n, max: 10_000n });
const rows = fc
  .uniqueArray(
    fc.record({
      postId: id,
      key,
      movedVersion: fc.option(fc.bigInt({ min: 1n, max: 9n }), { nil: undefined }),
    }),
    { selector: (r) => r.postId, maxLength: 20 },
  )
  .map((rs) => [...rs].sort((a, b) => compareDisplay(b, a)) as OverrideRow[]);

const ringEntry = (n: number): RingEntry => ({
  keyHash: n.toString(16).padStart(32, '0'),
  fingerprint: 'f'.repeat(32),
  version: BigInt(n),
  at: 1_000 + n,
  outcome: '{"r":null}',
});

/** What moves, pins, batch orders and keyed writes produce: upserts and statics, no deletion. */
const shareable: fc.Arbitrary<GridMutation> = fc.record(
  {
    upserts: fc.uniqueArray(
      fc.record({
        postId: id,
        sortKey: key,
        movedVersion: fc.option(fc.bigInt({ min: 10n, max: 99n }), { nil: undefined }),
      }),
      { selector: (u) => u.postId, maxLength: 5 },
    ),
    statics: fc.record(
      {
        pins: fc.uniqueArray(id, { maxLength: 3 }),
        recentRequests: fc.nat(50).map((n) => [ringEntry(n)]),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const snapshot = (overrides: OverrideRow[], version = 7n): OverridesSnapshot => ({
  head: { ...EMPTY_HEAD, version, pins: [5n] },
  overrides,
});

/** Applies the group one write after another, as its planners see it. */
function sequential(s0: OverridesSnapshot, ms: readonly GridMutation[]): OverridesSnapshot {
  return ms.reduce((s, m, i) => snapshotAfter(s, m, s0.head.version + BigInt(i) + 1n), s0);
}

describe('group commit: merged batch = the writes applied in order', () => {
  it('the merged mutation leaves the rows and statics of the last virtual snapshot', () => {
    fc.assert(
      fc.property(rows, fc.array(shareable, { minLength: 1, maxLength: 8 }), (before, ms) => {
        const s0 = snapshot(before);
        const last = sequential(s0, ms);
        const merged = mergeMutations(ms);
        // What the caches compute from the commit event (before + merged mutation)...
        expect(overridesAfter(s0.overrides, merged)).toEqual(last.overrides);
        const after = snapshotAfter(s0, merged, s0.head.version + BigInt(ms.length));
        // ...and what the next write of the group, or the next group, starts from.
        expect(after).toEqual(last);
        expect(last.head.version).toBe(s0.head.version + BigInt(ms.length));
      }),
    );
  });

  it('writes every row once (the last write of it wins) and builds a valid batch', () => {
    fc.assert(
      fc.property(fc.array(shareable, { minLength: 1, maxLength: 8 }), (ms) => {
        const merged = mergeMutations(ms);
        const ids = (merged.upserts ?? []).map((u) => u.postId);
        expect(new Set(ids).size).toBe(ids.length);
        for (const u of merged.upserts ?? []) {
          const writes = ms.flatMap((m) => (m.upserts ?? []).filter((x) => x.postId === u.postId));
          expect(u.sortKey).toBe(writes.at(-1)!.sortKey);
          // moved_version: the last write that set one (a relabel leaves it as it was).
          const moved = writes.filter((w) => w.movedVersion !== undefined).at(-1);
          expect(u.movedVersion).toBe(moved?.movedVersion);
        }
        // No duplicate row, no null: the store's own checks accept it.
        const statements = buildCasStatements(1n, 7n, 7n + BigInt(ms.length), merged);
        for (const st of statements) expect(st.params).not.toContain(null);
      }),
    );
  });

  it('a relabel later in the group keeps the moved_version an earlier write set', () => {
    const ms: GridMutation[] = [
      { upserts: [{ postId: 3n, sortKey: 50n, movedVersion: 8n }] },
      { upserts: [{ postId: 3n, sortKey: 40n }] }, // relabelled by the next move
    ];
    expect(mergeMutations(ms).upserts).toEqual([{ postId: 3n, sortKey: 40n, movedVersion: 8n }]);
  });

  it('statics: the last write that sets one wins; unset ones are left alone', () => {
    const merged = mergeMutations([
      { statics: { pins: [1n], recentRequests: [ringEntry(1)] } },
      { statics: { pins: undefined, recentRequests: [ringEntry(1), ringEntry(2)] } },
      { statics: { pins: [2n, 3n] } },
    ]);
    expect(merged.statics).toEqual({
      pins: [2n, 3n],
      recentRequests: [ringEntry(1), ringEntry(2)],
    });
  });
});

describe('group commit: what commits alone', () => {
  it('deletions, a reset and membership writes never share a batch', () => {
    expect(commitsAlone({ deleteRows: [1n] })).toBe(true);
    expect(commitsAlone({ clearOverrides: true })).toBe(true);
    expect(commitsAlone({ effects: [{ op: 'grid_put', postId: 1n, authorId: 2n }] })).toBe(true);
    expect(commitsAlone({ upserts: [{ postId: 1n, sortKey: 2n }], statics: { pins: [] } })).toBe(
      false,
    );
    expect(commitsAlone({ deleteRows: [] })).toBe(false); // an empty list deletes nothing
    expect(commitsAlone({})).toBe(false); // e.g. a reset of a grid without overrides
    expect(() => mergeMutations([{}, { clearOverrides: true }])).toThrow(/cannot share/);
  });
});

describe('group commit: bounds', () => {
  const bounds = { maxWrites: 4, maxRows: 6, maxBytes: 100_000 };
  const move = (postId: bigint): GridMutation => ({
    upserts: [{ postId, sortKey: postId * 10n, movedVersion: 9n }],
  });

  it('a first write always fits; then writes, rows and bytes are bounded', () => {
    const t = new GroupTally(bounds);
    const huge = {
      upserts: Array.from({ length: 50 }, (_, i) => move(BigInt(i + 1)).upserts![0]!),
    };
    expect(t.fits(huge)).toBe(true); // alone, over every bound
    const w = new GroupTally(bounds);
    for (const p of [1n, 2n, 3n, 4n]) {
      expect(w.fits(move(p))).toBe(true);
      w.add(move(p));
    }
    expect(w.full).toBe(true);
    expect(w.fits(move(1n))).toBe(false);

    const r = new GroupTally(bounds);
    r.add({ upserts: [1n, 2n, 3n, 4n, 5n].map((p) => move(p).upserts![0]!) });
    expect(r.fits(move(3n))).toBe(true); // a row already in the batch adds no row
    expect(r.fits({ upserts: [move(6n).upserts![0]!, move(7n).upserts![0]!] })).toBe(false);

    const b = new GroupTally({ ...bounds, maxBytes: estimateBytes(move(1n)) + 63 });
    b.add(move(1n));
    expect(b.fits(move(2n))).toBe(false); // one more row is 64 bytes
  });

  it('a write that commits alone ends the group before it, or after it when first', () => {
    const t = new GroupTally(bounds);
    t.add(move(1n));
    expect(t.fits({ deleteRows: [2n] })).toBe(false);
    const s = new GroupTally(bounds);
    expect(s.fits({ clearOverrides: true })).toBe(true);
    s.add({ clearOverrides: true });
    expect(s.full).toBe(true);
    expect(s.fits(move(1n))).toBe(false);
  });

  it(`at most ${RING_SIZE} keyed writes, so every key stays in the ring the group commits`, () => {
    const t = new GroupTally({ maxWrites: 64, maxRows: 1000, maxBytes: 1_000_000 });
    const keyed = (n: number): GridMutation => ({ statics: { recentRequests: [ringEntry(n)] } });
    for (let n = 0; n < RING_SIZE; n++) {
      expect(t.fits(keyed(n))).toBe(true);
      t.add(keyed(n));
    }
    expect(t.fits(keyed(99))).toBe(false);
    expect(t.fits(move(1n))).toBe(true); // an unkeyed write still fits
  });

  it('the estimate counts the merged batch: rows once, the ring once', () => {
    fc.assert(
      fc.property(fc.array(shareable, { minLength: 1, maxLength: 8 }), (ms) => {
        const merged = mergeMutations(ms);
        expect(estimateBytes(merged)).toBeLessThanOrEqual(
          ms.reduce((n, m) => n + estimateBytes(m), 0),
        );
      }),
    );
  });
});
