/**
 * The local tier's store (cache/local-pages.ts): bounded by bytes, one entry per (profile,
 * limit), entries a hit marked survive one eviction pass, a profile's entries drop together.
 */
import { describe, expect, it } from 'vitest';
import { createLocalPages } from '../../../src/cache/local-pages.js';

const page = (n: number) => ({ body: 'x'.repeat(400), n });
const SIZE = 400 * 2 + 200;

describe('local pages', () => {
  it('holds what fits, replaces per (profile, limit), and drops oldest-first past the bound', () => {
    const local = createLocalPages<ReturnType<typeof page>>(3 * SIZE);
    expect(local.put(1n, 24, page(1), 10)).toBe(true);
    expect(local.put(1n, 24, page(2), 20)).toBe(true); // same slot: replaced, not added
    local.put(2n, 24, page(3), 10);
    local.put(3n, 24, page(4), 10);
    local.put(4n, 24, page(5), 10); // over the bound: the oldest (profile 1) goes
    expect(local.get(1n, 24)).toBeUndefined();
    expect([2n, 3n, 4n].map((p) => local.get(p, 24)?.page.n)).toEqual([3, 4, 5]);
    expect(local.put(5n, 24, { body: 'x'.repeat(3 * SIZE), n: 6 }, 10)).toBe(false);
    local.put(4n, 24, page(7), 20);
    expect(local.get(4n, 24)).toMatchObject({ page: { n: 7 }, until: 20 });
  });

  it('gives an entry a hit marked a second chance', () => {
    const local = createLocalPages<ReturnType<typeof page>>(3 * SIZE);
    local.put(1n, 24, page(1), 10);
    local.put(2n, 24, page(2), 10);
    local.put(3n, 24, page(3), 10);
    local.get(1n, 24); // the oldest, but just used
    local.put(4n, 24, page(4), 10);
    expect(local.get(1n, 24)?.page.n).toBe(1);
    expect(local.get(2n, 24)).toBeUndefined(); // the oldest unused one went instead
  });

  it('drops every limit of a profile at once', () => {
    const local = createLocalPages<ReturnType<typeof page>>(10 * SIZE);
    local.put(1n, 12, page(1), 10);
    local.put(1n, 24, page(2), 10);
    local.put(2n, 24, page(3), 10);
    local.drop(1n);
    expect(local.get(1n, 12)).toBeUndefined();
    expect(local.get(1n, 24)).toBeUndefined();
    expect(local.get(2n, 24)?.page.n).toBe(3);
  });
});
