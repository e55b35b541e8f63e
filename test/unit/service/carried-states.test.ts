/**
 * CarriedStates (service/write/carried-states.ts): a busy line's state is always handed on; an
 * idle one only within `idleMs`; a profile marked shared is dropped at idle for `sharedForMs`;
 * the row bound evicts the least recently used profile first.
 */
import { describe, expect, it } from 'vitest';
import { CarriedStates } from '../../../src/service/write/carried-states.js';
import type { Carried } from '../../../src/service/write/group-commit.js';
import { GridPostsMemo } from '../../../src/store/grid-posts-memo.js';

function carried(overrides: number, postIds: bigint[] = []): Carried {
  const memo = new GridPostsMemo();
  if (postIds.length) memo.add(1n, postIds[0]!, postIds[postIds.length - 1]!, postIds);
  const rows = Array.from({ length: overrides }, (_, i) => ({
    postId: BigInt(i + 1),
    sortKey: BigInt(i + 1),
  }));
  return {
    snapshot: { head: { version: 7n, generation: 1n } as never, overrides: rows as never },
    memo,
  };
}

function states(settings: Partial<{ idleMs: number; maxRows: number; sharedForMs: number }> = {}) {
  let t = 1_000;
  const s = new CarriedStates(
    { idleMs: 100, maxRows: 1_000, sharedForMs: 500, memoMaxAgeMs: 250, ...settings },
    () => t,
  );
  return { s, tick: (ms: number) => (t += ms) };
}

describe('CarriedStates', () => {
  it('hands on a busy state, an idle one within idleMs, and nothing after', () => {
    const { s, tick } = states();
    const c = carried(3);
    s.put(1n, c);
    expect(s.take(1n)).toEqual({ carried: c, idle: false });
    s.put(1n, c);
    s.park(1n);
    tick(100);
    expect(s.take(1n)).toEqual({ carried: c, idle: true });
    s.put(1n, c);
    s.park(1n);
    tick(101);
    expect(s.take(1n)).toBeUndefined();
    expect(s.stats.idleStarts).toBe(1);
  });

  it('idleMs 0 drops at idle; a shared profile is dropped at idle until sharedForMs passed', () => {
    const off = states({ idleMs: 0 });
    off.s.put(1n, carried(1));
    off.s.park(1n);
    expect(off.s.take(1n)).toBeUndefined();

    const { s, tick } = states();
    s.markShared(2n);
    s.put(2n, carried(1));
    expect(s.take(2n)?.idle).toBe(false); // a busy line still hands on
    s.put(2n, carried(1));
    s.park(2n);
    expect(s.take(2n)).toBeUndefined();
    tick(501);
    s.put(2n, carried(1));
    s.park(2n);
    expect(s.take(2n)?.idle).toBe(true);
  });

  it('keeps at most maxRows rows, evicting the least recently used profile first', () => {
    const { s } = states({ maxRows: 10 });
    s.put(1n, carried(4));
    s.put(2n, carried(2, [5n, 6n])); // 4 rows
    expect(s.take(1n)).toBeDefined(); // 1 is now the most recently used
    s.put(1n, carried(4));
    s.put(3n, carried(4)); // 12 rows: 2 goes
    expect(s.take(2n)).toBeUndefined();
    expect(s.take(1n)).toBeDefined();
    expect(s.take(3n)).toBeDefined();
    s.put(4n, carried(11)); // over the bound alone: not kept
    expect(s.take(4n)).toBeUndefined();
  });
});
