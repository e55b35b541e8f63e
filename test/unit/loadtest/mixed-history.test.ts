import { describe, expect, it } from 'vitest';
import { checkMixedGrid, type MixedExpected } from '../../../tools/loadtest/mixed-check.js';
import {
  applyAck,
  contestedCreates,
  initialState,
  replayMixed,
  type MixedAck,
} from '../../../tools/loadtest/mixed-history.js';

const ids = (xs: number[]) => xs.map(BigInt);
let seq = 0;
const at = (version: number, a: Record<string, unknown>): MixedAck =>
  ({ version: BigInt(version), seq: seq++, ...a }) as unknown as MixedAck;
const move = (v: number, post: number, after: number | null) =>
  at(v, { kind: 'move', postId: BigInt(post), after: after === null ? null : BigInt(after) });
const one = (v: number, kind: string, post: number) => at(v, { kind, postId: BigInt(post) });
const pins = (v: number, p: number[]) => at(v, { kind: 'pins', pins: ids(p) });
const batch = (v: number, o: number[]) => at(v, { kind: 'batch', order: ids(o) });

describe('applyAck / replayMixed', () => {
  it('worked example: create, move, pin, archive, unarchive, delete, batch order', () => {
    // [3, 2, 1] → create 4 (top) → 1 after 4 → pin 2 → archive 3 → delete 4.
    const s = replayMixed(ids([3, 2, 1]), [
      one(1, 'create', 4),
      move(2, 1, 4),
      pins(3, [2]),
      one(4, 'archive', 3),
      one(5, 'delete', 4),
    ]);
    expect(s.pins).toEqual([2n]);
    expect(s.main).toEqual([1n]);
    expect([...s.archived]).toEqual([3n]);
    expect([...s.deleted]).toEqual([4n]);
    // Unarchive puts 3 back by its key: on the grid, place unknown; a batch order places it.
    const back = applyAck(s, one(6, 'unarchive', 3));
    expect(back.floating.has(3n)).toBe(true);
    const placed = applyAck(back, batch(7, [1, 3]));
    expect(placed.main).toEqual([1n, 3n]);
    expect(placed.floating.size).toBe(0);
  });

  it('unpinned posts float, and so does a post moved after a floating or a pinned one', () => {
    let s = replayMixed(ids([3, 2, 1]), [pins(1, [2]), pins(2, [])]);
    expect(s.floating.has(2n)).toBe(true);
    s = applyAck(s, move(3, 1, 2));
    expect(s.floating.has(1n)).toBe(true);
    s = applyAck(s, move(4, 1, null)); // the top is a known place
    expect(s.floating.has(1n)).toBe(false);
    s = applyAck(applyAck(s, pins(5, [3])), move(6, 1, 3));
    expect(s.floating.has(1n)).toBe(true);
  });

  it('refuses what cannot have been applied', () => {
    expect(() => replayMixed(ids([2, 1]), [one(1, 'archive', 9)])).toThrow(/not on the grid/);
    expect(() => replayMixed(ids([2, 1]), [batch(1, [1])])).toThrow(/permutation/);
    expect(() => replayMixed(ids([2, 1]), [pins(1, [2]), move(2, 2, null)])).toThrow(
      /not in the main order/,
    );
  });

  it('equal versions: the write that committed goes first, the no-ops after it', () => {
    // Version 2 is "archive 1"; an unarchive of 1 planned on version 1's snapshot found it on
    // the grid (a no-op at version 1), and an archive planned on version 2 found it archived.
    const acks = [one(1, 'unarchive', 1), one(2, 'archive', 1), one(2, 'archive', 1)];
    // Acknowledgement order puts the no-op first; either way the result is the same state.
    const s = replayMixed(ids([2, 1]), acks.reverse());
    expect(s.main).toEqual([2n]);
    expect([...s.archived]).toEqual([1n]);
  });

  it('a create overtaken by a write of a lower version floats; one alone goes to the top', () => {
    const early = { ...one(5, 'create', 9), sentAt: 0, ackedAt: 10 };
    const later = { ...move(6, 1, null), sentAt: 20, ackedAt: 30 };
    expect(contestedCreates([early, later]).size).toBe(0);
    const overtaken = { ...one(7, 'create', 8), sentAt: 25, ackedAt: 40 };
    expect([...contestedCreates([early, later, overtaken])]).toEqual([overtaken]);
    const s = replayMixed(ids([2, 1]), [early, later, overtaken]);
    expect(s.floating.has(8n)).toBe(true);
    expect(s.floating.has(9n)).toBe(false);
    expect(initialState(ids([1])).floating.size).toBe(0);
  });
});

describe('checkMixedGrid', () => {
  const expected = (acks: MixedAck[], extra: Partial<MixedExpected> = {}): MixedExpected => ({
    profileId: 7n,
    initial: ids([4, 3, 2, 1]),
    acks,
    uncertain: 0,
    ...extra,
  });
  const acks = () => [
    pins(11, [2]),
    one(12, 'archive', 4),
    one(13, 'delete', 3),
    move(14, 1, null),
  ];
  const read = (display: number[], p: number[], main: number[]) => ({
    display: ids(display),
    pins: ids(p),
    main: ids(main),
  });

  it('passes the grid the operations imply', () => {
    const r = checkMixedGrid(expected(acks()), read([2, 1], [2], [1]));
    expect(r.violations).toEqual([]);
    expect(r.orderChecked).toBe(true);
  });

  it('names an archived or deleted post still shown, a lost one, and a duplicate', () => {
    const shown = checkMixedGrid(expected(acks()), read([2, 1, 4, 3], [2], [1, 4, 3]));
    expect(shown.violations.map((v) => v.kind)).toEqual(['unexpected']);
    expect(shown.violations[0]!.detail).toMatch(/4 \(archived\), 3 \(deleted\)/);
    const lost = checkMixedGrid(expected(acks()), read([2], [2], []));
    expect(lost.violations.map((v) => v.kind)).toEqual(['lost']);
    const dup = checkMixedGrid(expected(acks()), read([2, 1, 1], [2], [1, 1]));
    expect(dup.violations.map((v) => v.kind)).toContain('duplicate');
  });

  it('checks the pins and their order, and the page against the order resource', () => {
    const two = [...acks(), pins(15, [1, 2])];
    expect(checkMixedGrid(expected(two), read([1, 2], [1, 2], [])).violations).toEqual([]);
    const swapped = checkMixedGrid(expected(two), read([2, 1], [2, 1], []));
    expect(swapped.violations.map((v) => v.kind)).toEqual(['pins']);
    const page = checkMixedGrid(expected(acks()), read([1, 2], [2], [1]));
    expect(page.violations.map((v) => v.kind)).toEqual(expect.arrayContaining(['pins', 'order']));
  });

  it('finds placed posts out of order, leaves floating ones out, and names unexplained versions', () => {
    const base = [move(11, 1, null)]; // [1, 4, 3, 2]
    const wrong = checkMixedGrid(expected(base), read([4, 1, 3, 2], [], [4, 1, 3, 2]));
    expect(wrong.violations.map((v) => v.kind)).toEqual(['order']);
    // 2 unpinned: it floats, wherever it is read back.
    const floating = [pins(11, [2]), pins(12, [])];
    const r = checkMixedGrid(expected(floating), read([4, 2, 3, 1], [], [4, 2, 3, 1]));
    expect(r.violations).toEqual([]);
    expect(r.floating).toBe(1);
    const gap = checkMixedGrid(
      expected(base, { versions: { seeded: 10n, final: 12n } }),
      read([1, 4, 3, 2], [], [1, 4, 3, 2]),
    );
    expect(gap.violations.map((v) => v.detail)).toEqual([
      '1 version(s) committed that no acknowledged operation explains',
    ]);
  });

  it('with operations of unknown outcome, checks duplicates only', () => {
    const r = checkMixedGrid(expected(acks(), { uncertain: 1 }), read([9, 9], [], [9, 9]));
    expect(r.orderChecked).toBe(false);
    expect(r.violations.map((v) => v.kind)).toEqual(['duplicate']);
  });
});
