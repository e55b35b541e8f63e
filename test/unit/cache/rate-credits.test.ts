import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { creditPolicy, RateCredits } from '../../../src/cache/rate-credits.js';

describe('creditPolicy', () => {
  it('carries up to 64 moves a request by default, MOVE_RATE_CREDIT_MAX if set, never past the limit', () => {
    expect(creditPolicy(120)).toEqual({ maxAsk: 64 });
    expect(creditPolicy(3).maxAsk).toBe(3);
    expect(creditPolicy(1e9, 7).maxAsk).toBe(7);
    expect(creditPolicy(5, 64).maxAsk).toBe(5);
    expect(creditPolicy(120, 1).maxAsk).toBe(1);
  });
});

describe('RateCredits', () => {
  it('the worked example: 10 moves in one tick, maxAsk 7, the window full after 5', () => {
    const c = new RateCredits<string>({ maxAsk: 7 });
    const moves = Array.from({ length: 10 }, (_, i) => `m${i + 1}`);
    expect(moves.map((m) => c.arrive(1n, m))).toEqual([true, ...Array(9).fill(false)]);
    expect(c.carry(1n)).toBe(7);
    // While it is in flight no second request goes out for the profile.
    expect(() => c.carry(1n)).toThrow(/in flight/);
    expect(c.settle(1n, 5)).toEqual({
      admitted: ['m1', 'm2', 'm3', 'm4', 'm5'],
      refused: ['m6', 'm7'],
    });
    expect(c.carry(1n)).toBe(3);
    expect(c.settle(1n, 3)).toEqual({ admitted: ['m8', 'm9', 'm10'], refused: [] });
    expect(c.carry(1n)).toBe(0);
    expect(c.size).toBe(0);
    // Forgotten: the next move starts a request of its own again.
    expect(c.arrive(1n, 'm11')).toBe(true);
  });

  it('no answer (Redis down or slow): every move the request carried is admitted', () => {
    const c = new RateCredits<number>({ maxAsk: 4 });
    for (let i = 0; i < 6; i++) c.arrive(7n, i);
    expect(c.carry(7n)).toBe(4);
    expect(c.settle(7n, undefined)).toEqual({ admitted: [0, 1, 2, 3], refused: [] });
    expect(c.carry(7n)).toBe(2);
    expect(c.settle(7n, 0)).toEqual({ admitted: [], refused: [4, 5] });
    expect(() => c.settle(7n, 1)).toThrow(/no request/);
  });

  it('profiles are independent: one request in flight per profile, not per process', () => {
    const c = new RateCredits<string>({ maxAsk: 8 });
    expect(c.arrive(1n, 'a')).toBe(true);
    expect(c.arrive(2n, 'b')).toBe(true);
    expect([c.carry(1n), c.carry(2n)]).toEqual([1, 1]);
    expect(c.settle(2n, 1).admitted).toEqual(['b']);
    expect(c.size).toBe(2);
  });

  /**
   * A model of the process against one Redis log per profile (limit L, no expiry within a run):
   * moves arrive, requests go out and are answered in any interleaving, some answers lost.
   */
  it('no false refusal, no slot reserved ahead, every move answered once (model)', () => {
    type Op =
      | { kind: 'arrive'; profile: number; n: number }
      | { kind: 'start'; profile: number }
      | { kind: 'answer'; profile: number; lost: boolean };
    const profile = fc.integer({ min: 1, max: 3 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        kind: fc.constant('arrive' as const),
        profile,
        n: fc.integer({ min: 1, max: 12 }),
      }),
      fc.record({ kind: fc.constant('start' as const), profile }),
      fc.record({ kind: fc.constant('answer' as const), profile, lost: fc.boolean() }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(op, { maxLength: 300 }),
        (maxAsk, limit, ops) => {
          const c = new RateCredits<{ id: number; profile: number }>({ maxAsk });
          const log = new Map<number, number>(); // members in each profile's log
          const letThrough = new Map<number, number>(); // admitted, with a slot or failing open
          const due = new Set<number>(); // profiles whose caller must start a request
          const flight = new Map<number, number>(); // profile → slots asked, in flight
          const answered = new Map<number, 'admitted' | 'refused'>();
          const order = new Map<number, number[]>(); // answer order per profile
          let next = 0;
          const arrived: Array<{ id: number; profile: number }> = [];

          const answer = (profile: number, lost: boolean) => {
            const want = flight.get(profile);
            if (want === undefined) return;
            flight.delete(profile);
            const free = limit - (log.get(profile) ?? 0);
            const granted = Math.min(want, free);
            // The script adds its members even when the reply is lost on the way back.
            log.set(profile, (log.get(profile) ?? 0) + granted);
            const s = c.settle(BigInt(profile), lost ? undefined : granted);
            expect(s.admitted.length + s.refused.length).toBe(want);
            letThrough.set(profile, (letThrough.get(profile) ?? 0) + s.admitted.length);
            // Refused only with the window full of moves that were let through.
            if (s.refused.length > 0) expect(log.get(profile)).toBe(limit);
            for (const [verdict, moves] of [
              ['admitted', s.admitted],
              ['refused', s.refused],
            ] as const) {
              for (const m of moves) {
                expect(m.profile).toBe(profile);
                expect(answered.has(m.id)).toBe(false);
                answered.set(m.id, verdict);
                order.set(profile, [...(order.get(profile) ?? []), m.id]);
              }
            }
            // The caller's loop goes on at once with whatever waits.
            start(profile);
          };
          const start = (profile: number) => {
            const want = c.carry(BigInt(profile));
            if (want === 0) {
              due.delete(profile);
              return;
            }
            expect(want).toBeGreaterThanOrEqual(1);
            expect(want).toBeLessThanOrEqual(maxAsk);
            flight.set(profile, want);
          };

          for (const o of ops) {
            if (o.kind === 'arrive') {
              for (let i = 0; i < o.n; i++) {
                const m = { id: next++, profile: o.profile };
                arrived.push(m);
                const mustStart = c.arrive(BigInt(o.profile), m);
                // Only when nothing is under way for the profile.
                expect(mustStart).toBe(!due.has(o.profile) && !flight.has(o.profile));
                if (mustStart) due.add(o.profile);
              }
            } else if (o.kind === 'start') {
              if (due.has(o.profile) && !flight.has(o.profile)) start(o.profile);
            } else {
              answer(o.profile, o.lost);
            }
            // The log never holds more than the moves let through (nothing reserved ahead).
            for (const [p, members] of log) {
              expect(members).toBeLessThanOrEqual(Math.min(limit, letThrough.get(p) ?? 0));
            }
          }
          // Drain: every request is started and answered.
          for (let guard = 0; guard < 10_000 && (due.size > 0 || flight.size > 0); guard++) {
            for (const p of [...due]) if (!flight.has(p)) start(p);
            for (const p of [...flight.keys()]) answer(p, false);
          }
          expect(c.size).toBe(0);
          // Every move answered exactly once, in arrival order per profile.
          expect(answered.size).toBe(arrived.length);
          for (const [p, ids] of order) {
            expect(ids).toEqual(arrived.filter((m) => m.profile === p).map((m) => m.id));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
