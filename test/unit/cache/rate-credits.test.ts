import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { creditPolicy, RateCredits } from '../../../src/cache/rate-credits.js';

describe('creditPolicy', () => {
  it('grants at most a 16th of the limit (≤ 16, ≥ 1) and never more than the limit', () => {
    expect(creditPolicy(120, 60_000)).toEqual({ maxCredit: 7, ttlMs: 500 });
    expect(creditPolicy(3, 30_000).maxCredit).toBe(1);
    expect(creditPolicy(1e9, 60_000).maxCredit).toBe(16);
    expect(creditPolicy(5, 1000, 64).maxCredit).toBe(5);
    expect(creditPolicy(120, 1000).ttlMs).toBe(62);
  });
});

describe('RateCredits', () => {
  it('a fast mover asks for 1, 2, 4 … up to the cap; a slow one for 1', () => {
    const c = new RateCredits({ maxCredit: 8, ttlMs: 100 });
    const asks: number[] = [];
    let t = 0;
    let seq = 0;
    for (let move = 0; move < 40; move++, t += 1) {
      if (c.take(1n, t) !== undefined) continue;
      const want = c.want(1n, t);
      asks.push(want);
      c.grant(
        1n,
        Array.from({ length: want }, () => `m${seq++}`),
        1000,
        t,
      );
    }
    expect(asks.slice(0, 5)).toEqual([1, 2, 4, 8, 8]);
    // A profile whose slots expired between moves asks for one again.
    expect(c.drop(1n, t + 1000)).toBeDefined();
    expect(c.want(1n, t + 1000)).toBe(1);
  });

  it('every granted slot is either used once or handed back once (model)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('move' as const), profile: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 150 }) }),
      fc.record({ kind: fc.constant('sweep' as const) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(op, { maxLength: 200 }),
        (maxCredit, free0, ops) => {
          const c = new RateCredits({ maxCredit, ttlMs: 100 });
          const free = new Map<number, number>(); // the log's free slots, per profile
          const used = new Set<string>();
          const returned = new Set<string>();
          const granted = new Set<string>();
          let t = 0;
          let seq = 0;
          let takes = 0;
          let refused = 0;
          const handBack = (members: readonly string[], profile: number) => {
            for (const m of members) {
              expect(granted.has(m) && !used.has(m) && !returned.has(m)).toBe(true);
              returned.add(m);
            }
            free.set(profile, (free.get(profile) ?? free0) + members.length);
          };
          for (const o of ops) {
            if (o.kind === 'tick') t += o.ms;
            else if (o.kind === 'sweep') {
              for (const r of c.expire(t)) handBack(r.members, Number(r.profileId));
            } else {
              const p = BigInt(o.profile);
              const dropped = c.drop(p, t);
              if (dropped) handBack(dropped.members, o.profile);
              const held = c.take(p, t);
              if (held !== undefined) {
                takes += 1;
                expect(held).toBeGreaterThanOrEqual(0);
                continue;
              }
              const want = c.want(p, t);
              expect(want).toBeGreaterThanOrEqual(1);
              expect(want).toBeLessThanOrEqual(maxCredit);
              const f = free.get(o.profile) ?? free0;
              const k = Math.min(want, f);
              if (k === 0) refused += 1;
              const members = Array.from({ length: k }, () => `m${seq++}`);
              members.forEach((m) => granted.add(m));
              if (members[0]) used.add(members[0]);
              free.set(o.profile, f - k);
              c.grant(p, members, f - k, t);
            }
          }
          for (const r of c.expire(Number.POSITIVE_INFINITY))
            handBack(r.members, Number(r.profileId));
          // Conservation: every granted slot paid for exactly one move or went back to the log.
          const moves = ops.filter((o) => o.kind === 'move').length;
          expect(used.size + takes + refused).toBe(moves);
          expect(granted.size).toBe(used.size + takes + returned.size);
          expect(c.size).toBe(0);
        },
      ),
    );
  });
});
