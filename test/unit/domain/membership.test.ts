import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countDelta,
  decodeEffects,
  encodeEffects,
  needsRollForward,
  nextEffectsTs,
  type Effects,
  type MembershipOp,
} from '../../../src/domain/membership.js';

const id = fc.bigInt({ min: 1n, max: (1n << 63n) - 1n });
const op: fc.Arbitrary<MembershipOp> = fc.oneof(
  fc.record({ op: fc.constant('grid_put' as const), postId: id, authorId: id }),
  fc.record({ op: fc.constant('grid_drop' as const), postId: id }),
  fc.record({
    op: fc.constant('archive_put' as const),
    postId: id,
    authorId: id,
    sortKey: fc.option(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), {
      nil: undefined,
    }),
    seq: id,
  }),
  fc.record({
    op: fc.constant('archive_drop' as const),
    postId: id,
    seq: fc.option(id, { nil: undefined }),
  }),
  fc.record({ op: fc.constant('invite_put' as const), postId: id, authorId: id }),
  fc.record({ op: fc.constant('invite_drop' as const), postId: id }),
);
const effects: fc.Arbitrary<Effects> = fc.record({
  version: id,
  ts: fc.bigInt({ min: 0n, max: 1n << 62n }),
  ops: fc.array(op, { maxLength: 6 }),
});

describe('membership effects', () => {
  it('round-trip through their stored text exactly', () => {
    fc.assert(
      fc.property(effects, (e) => {
        const back = decodeEffects(encodeEffects(e))!;
        expect(back.version).toBe(e.version);
        expect(back.ts).toBe(e.ts);
        // undefined optional fields are simply absent after the trip
        expect(back.ops).toEqual(
          e.ops.map((o) =>
            Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
          ),
        );
      }),
    );
  });

  it('get timestamps that always grow, even when the clock goes back', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 1n << 52n }), { minLength: 1 }), (clock) => {
        let prev: Effects | undefined;
        for (const now of clock) {
          const ts = nextEffectsTs(prev, now);
          if (prev) expect(ts > prev.ts).toBe(true);
          expect(ts >= now).toBe(true);
          prev = { version: 1n, ts, ops: [] };
        }
      }),
    );
  });

  it('count +1 per grid_put and -1 per grid_drop, nothing for the rest', () => {
    fc.assert(
      fc.property(fc.array(op), (ops) => {
        const puts = ops.filter((o) => o.op === 'grid_put').length;
        const drops = ops.filter((o) => o.op === 'grid_drop').length;
        expect(countDelta(ops)).toBe(BigInt(puts - drops));
      }),
    );
  });

  it('need a roll-forward only when recorded with ops above the applied version', () => {
    const e: Effects = { version: 5n, ts: 1n, ops: [{ op: 'grid_drop', postId: 1n }] };
    expect(needsRollForward(e, 4n)).toBe(true);
    expect(needsRollForward(e, 5n)).toBe(false);
    expect(needsRollForward(e, 9n)).toBe(false);
    expect(needsRollForward({ ...e, ops: [] }, 0n)).toBe(false);
    expect(needsRollForward(undefined, 0n)).toBe(false);
    expect(decodeEffects(null)).toBeUndefined();
    expect(() => decodeEffects('{"v":"1","ts":"1","ops":[{"op":"nope","p":"1"}]}')).toThrow();
  });
});
