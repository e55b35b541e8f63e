/** The post-count rule (service/post-count.ts): delta when trustworthy, else one recount. */
import { describe, expect, it } from 'vitest';
import { nextPostCount } from '../../../src/service/post-count.js';
import { EMPTY_HEAD } from '../../../src/store/grid-store.js';

function fakeStore(rows: bigint) {
  const calls: bigint[] = [];
  return {
    calls,
    countGridRows: async (p: bigint) => {
      calls.push(p);
      return rows;
    },
  };
}

const ctx = (postCount: bigint | undefined, outcomeUnknown = false) => ({
  profileId: 7n,
  snapshot: { head: { ...EMPTY_HEAD, version: 3n, postCount }, overrides: [] },
  outcomeUnknown,
});

describe('nextPostCount', () => {
  it('adds the delta to a known count without reading', async () => {
    const store = fakeStore(99n);
    expect(await nextPostCount(store, ctx(10n), 1n)).toBe(11n);
    expect(await nextPostCount(store, ctx(10n), -1n)).toBe(9n);
    expect(store.calls).toEqual([]);
  });

  it('recounts (without adding the delta) when the cell is absent, asked to, or uncertain', async () => {
    const store = fakeStore(42n);
    expect(await nextPostCount(store, ctx(undefined), 1n)).toBe(42n);
    expect(await nextPostCount(store, ctx(10n), 'recount')).toBe(42n);
    expect(await nextPostCount(store, ctx(10n, true), 1n)).toBe(42n);
    expect(await nextPostCount(store, ctx(0n), -1n)).toBe(42n); // would go negative: drifted
    expect(store.calls).toEqual([7n, 7n, 7n, 7n]);
  });
});
