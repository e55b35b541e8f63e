import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkRing,
  pushToRing,
  RING_SIZE,
  type RingEntry,
} from '../../../src/domain/request-ring.js';

const entry = (n: number, version = BigInt(n), at = 1_000): RingEntry => ({
  keyHash: `k${n}`,
  fingerprint: `f${n}`,
  version,
  at,
  outcome: `{"n":${n}}`,
});
const opts = { now: 1_000, maxAgeMs: 60_000 };

describe('request ring', () => {
  it('replays a committed key with the same fingerprint and rejects another fingerprint', () => {
    const ring = [entry(1), entry(2)];
    expect(checkRing(ring, 'k2', 'f2', 0n)).toEqual({ kind: 'replay', entry: ring[1] });
    expect(checkRing(ring, 'k2', 'other', 0n).kind).toBe('mismatch');
    expect(checkRing(ring, 'k3', 'f3', 0n).kind).toBe('absent');
  });

  it('keeps at most RING_SIZE entries, evicting the oldest', () => {
    let ring: RingEntry[] = [];
    for (let i = 1; i <= RING_SIZE + 3; i++) ring = pushToRing(ring, entry(i), opts);
    expect(ring).toHaveLength(RING_SIZE);
    expect(ring[0]!.keyHash).toBe('k4');
    expect(ring.at(-1)!.keyHash).toBe(`k${RING_SIZE + 3}`);
  });

  it('drops entries older than the retention period', () => {
    const ring = pushToRing([entry(1, 1n, 0), entry(2, 2n, 900)], entry(3), {
      now: 1_000,
      maxAgeMs: 500,
    });
    expect(ring.map((e) => e.keyHash)).toEqual(['k2', 'k3']);
  });

  it("answers 'unknown' instead of 'absent' when the key may have been evicted", () => {
    let ring: RingEntry[] = [];
    for (let i = 1; i <= RING_SIZE + 1; i++) ring = pushToRing(ring, entry(i), opts);
    // Claimed at version 0: k1 committed at 1 and was evicted → cannot tell.
    expect(checkRing(ring, 'k1', 'f1', 0n).kind).toBe('unknown');
    // Claimed at version 2: anything evicted committed at ≤ 1 < claim → provably absent.
    expect(checkRing(ring, 'kX', 'fX', 2n).kind).toBe('absent');
  });

  it('never says absent for a key that committed after its claim (property)', () => {
    // Random sequence of keyed commits; one of them is "ours", claimed just before it committed.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.nat(59), (n, oursRaw) => {
        const ours = (oursRaw % n) + 1;
        let ring: RingEntry[] = [];
        for (let i = 1; i <= n; i++) ring = pushToRing(ring, entry(i), opts);
        const verdict = checkRing(ring, `k${ours}`, `f${ours}`, BigInt(ours - 1));
        return verdict.kind === 'replay' || verdict.kind === 'unknown';
      }),
      { seed: 11, numRuns: 300 },
    );
  });
});
