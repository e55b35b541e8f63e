/**
 * LastCommitted (service/write-line/last-committed.ts): a record is trusted (no read) while its
 * queue runs and for `trustIdleMs` after it emptied, confirmed by one head read otherwise; a grid
 * marked shared is not trusted across idle for `sharedForMs`; the row bound evicts the least
 * recently used grid first. (The cases of the former carried-states test, on the one record.)
 */
import { describe, expect, it } from 'vitest';
import { LastCommitted } from '../../../src/service/write-line/last-committed.js';
import { GridPostsMemo } from '../../../src/service/write-line/known-rows.js';
import { EMPTY_HEAD, type OverridesSnapshot } from '../../../src/store/grid-store.js';

const head = { ...EMPTY_HEAD, version: 7n };

function state(overrides: number): OverridesSnapshot {
  const rows = Array.from({ length: overrides }, (_, i) => ({
    postId: BigInt(i + 1),
    key: BigInt(i + 1),
    movedVersion: undefined,
  }));
  return { head, overrides: rows };
}

function known(postIds: bigint[] = []): GridPostsMemo {
  const memo = new GridPostsMemo();
  if (postIds.length) memo.add(1n, postIds[0]!, postIds[postIds.length - 1]!, postIds);
  return memo;
}

/** A store whose grid is at `current`; counts the reads a start makes. */
function storeAt(current = head) {
  const reads = { heads: 0, overrides: 0 };
  return {
    reads,
    readHead: async () => (reads.heads++, current),
    readOverrides: async () => (reads.overrides++, { head: current, overrides: [] }),
  };
}

function records(
  settings: Partial<{ trustIdleMs: number; maxRows: number; sharedForMs: number }> = {},
) {
  let t = 1_000;
  const r = new LastCommitted(
    { trustIdleMs: 100, maxRows: 1_000, sharedForMs: 500, rowsMaxAgeMs: 250, ...settings },
    () => t,
  );
  return { r, tick: (ms: number) => (t += ms) };
}

describe('LastCommitted', () => {
  it('is trusted while its queue runs, after idle within trustIdleMs, and confirmed after', async () => {
    const { r, tick } = records();
    const store = storeAt();
    const s = state(3);
    r.committed(1n, s, known(), true);
    const busy = await r.start(1n, store, true);
    expect(busy).toMatchObject({ snapshot: s, trusted: true, afterIdle: false });
    r.committed(1n, s, known(), true);
    r.idle(1n);
    tick(100);
    const idle = await r.start(1n, store, true);
    expect(idle).toMatchObject({ snapshot: s, trusted: true, afterIdle: true });
    expect(store.reads).toEqual({ heads: 0, overrides: 0 });
    r.committed(1n, s, known(), true);
    r.idle(1n);
    tick(101);
    const confirmed = await r.start(1n, store, true);
    expect(confirmed).toMatchObject({ trusted: false, afterIdle: false });
    expect(confirmed.snapshot.overrides).toBe(s.overrides); // one head read, the rows known
    expect(store.reads).toEqual({ heads: 1, overrides: 0 });
  });

  it('trustIdleMs 0 confirms after idle; a shared grid is confirmed after idle for sharedForMs', async () => {
    const off = records({ trustIdleMs: 0 });
    off.r.committed(1n, state(1), known(), true);
    off.r.idle(1n);
    expect((await off.r.start(1n, storeAt(), true)).trusted).toBe(false);

    const { r, tick } = records();
    r.stale(2n);
    r.committed(2n, state(1), known(), true);
    const busy = await r.start(2n, storeAt(), true);
    expect(busy).toMatchObject({ trusted: true, afterIdle: false }); // a running queue trusts
    r.committed(2n, state(1), known(), true);
    r.idle(2n);
    expect((await r.start(2n, storeAt(), true)).trusted).toBe(false);
    tick(501);
    r.committed(2n, state(1), known(), true);
    r.idle(2n);
    expect((await r.start(2n, storeAt(), true)).afterIdle).toBe(true);
  });

  it('drops a record whose head moved on, and reads the whole partition', async () => {
    const { r } = records();
    r.committed(1n, state(3), known(), false);
    const store = storeAt({ ...head, version: 8n });
    expect((await r.start(1n, store, true)).trusted).toBe(false);
    expect(store.reads).toEqual({ heads: 1, overrides: 1 });
    await r.start(1n, store, true);
    expect(store.reads).toEqual({ heads: 1, overrides: 2 }); // gone: no head read first
  });

  it('keeps at most maxRows rows, evicting the least recently used grid first', async () => {
    const { r } = records({ maxRows: 10 });
    const kept = async (id: bigint) => {
      const store = storeAt();
      await r.start(id, store, true);
      return store.reads.overrides === 0;
    };
    r.committed(1n, state(4), known(), true);
    r.committed(2n, state(2), known([5n, 6n]), true); // 4 rows
    expect(await kept(1n)).toBe(true); // 1 is now the most recently used
    r.committed(1n, state(4), known(), true);
    r.committed(3n, state(4), known(), true); // 12 rows: 2 goes
    expect(await kept(2n)).toBe(false);
    expect(await kept(1n)).toBe(true);
    expect(await kept(3n)).toBe(true);
    r.committed(4n, state(11), known(), true); // over the bound alone: not kept
    expect(await kept(4n)).toBe(false);
  });
});
