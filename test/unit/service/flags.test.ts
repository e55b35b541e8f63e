/**
 * The Flags reader's freshness rule with a fake store and clock: fresh values are used as they
 * are, values past FLAGS_REFRESH_MS are refreshed in the background, values past twice that are
 * never used (the caller waits): so a decision never rests on values older than `boundMs`.
 * Also: defaults on, a failing store keeps the last values, unknown names are flag_not_found.
 */
import { describe, expect, it } from 'vitest';
import { Flags } from '../../../src/service/flags.js';
import type { FlagsStore } from '../../../src/store/flags-store.js';

const tick = () => new Promise((r) => setImmediate(r));

function fakeStore() {
  const rows = new Map<string, boolean>();
  let reads = 0;
  let failing = false;
  const store = {
    async readAll() {
      reads += 1;
      await tick(); // a read takes a round trip

      if (failing) throw new Error('down');
      return new Map(rows);
    },
    async set(name: string, enabled: boolean) {
      rows.set(name, enabled);
    },
  };
  return {
    store: store as unknown as FlagsStore,
    rows,
    reads: () => reads,
    fail: (f: boolean) => (failing = f),
  };
}

describe('Flags', () => {
  it('defaults on; follows another writer within 2 × refreshMs', async () => {
    const s = fakeStore();
    let now = 0;
    const flags = new Flags(s.store, 500, () => now);
    expect(await flags.isEnabled('reads.overrides')).toBe(true);
    s.rows.set('reads.overrides', false); // written by another process
    now = 400;
    expect(await flags.isEnabled('reads.overrides')).toBe(true); // fresh: no read
    expect(s.reads()).toBe(1);
    now = 600; // stale: used once more while the refresh runs
    expect(await flags.isEnabled('reads.overrides')).toBe(true);
    await tick();
    expect(await flags.isEnabled('reads.overrides')).toBe(false);
    s.rows.set('reads.overrides', true);
    now = 600 + 1000; // past the bound: the caller waits for the refresh
    expect(await flags.isEnabled('reads.overrides')).toBe(true);
    expect(flags.boundMs).toBe(1000);
  });

  it('keeps the last values when the store fails; refuses on feature_disabled', async () => {
    const s = fakeStore();
    let now = 0;
    const flags = new Flags(s.store, 500, () => now);
    await flags.set('writes.reorder', false);
    await expect(flags.require('writes.reorder')).rejects.toMatchObject({
      code: 'feature_disabled',
      details: { retry_after_s: 60 },
    });
    s.fail(true);
    now = 5000;
    expect(await flags.isEnabled('writes.reorder')).toBe(false);
    expect(flags.failures).toBeGreaterThan(0);
    await expect(flags.list()).rejects.toMatchObject({ code: 'unavailable' });
    await expect(flags.set('nope', true)).rejects.toMatchObject({ code: 'flag_not_found' });
  });

  it('held answers exactly when isEnabled need not wait, with the same value', async () => {
    const s = fakeStore();
    let now = 0;
    const flags = new Flags(s.store, 500, () => now);
    expect(flags.held('reads.overrides')).toBeUndefined(); // never read: the caller waits
    expect(await flags.isEnabled('reads.overrides')).toBe(true);
    expect(s.reads()).toBe(1);
    s.rows.set('reads.overrides', false);
    now = 400;
    expect(flags.held('reads.overrides')).toBe(true); // fresh: no read
    expect(s.reads()).toBe(1);
    now = 600; // stale: used once more while the refresh it starts runs
    expect(flags.held('reads.overrides')).toBe(true);
    expect(s.reads()).toBe(2);
    await tick();
    expect(flags.held('reads.overrides')).toBe(false);
    now = 600 + 1000; // past the bound: none held, isEnabled waits for a read
    expect(flags.held('reads.overrides')).toBeUndefined();
    expect(await flags.isEnabled('reads.overrides')).toBe(false);
  });
});
