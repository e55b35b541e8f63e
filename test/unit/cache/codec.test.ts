import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeOrder,
  decodeOverrides,
  decodePost,
  decodeSummary,
  encodeOrder,
  encodeOverrides,
  encodePost,
  encodeSummary,
} from '../../../src/cache/codec.js';
import { meetsMin } from '../../../src/domain/grid-version.js';
import { cacheKeys } from '../../../src/cache/keys.js';

const id = fc.bigInt({ min: 1n, max: (1n << 63n) - 1n });

describe('cache codec', () => {
  it('round-trips orders', () => {
    const entry = fc.record({ postId: id, key: id });
    fc.assert(
      fc.property(
        fc.record({
          generation: id,
          version: fc.bigInt({ min: 0n, max: 1n << 40n }),
          pins: fc.array(id, { maxLength: 3 }),
          entries: fc.array(entry, { maxLength: 60 }),
          complete: fc.boolean(),
        }),
        (order) => {
          expect(decodeOrder(encodeOrder(order))).toEqual(order);
        },
      ),
      { seed: 4242 },
    );
  });

  it('round-trips override lists, including absent moved versions', () => {
    const row = fc.record({ postId: id, key: id, movedVersion: fc.option(id, { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 200 }), (rows) => {
        expect(decodeOverrides(encodeOverrides(rows))).toEqual(rows);
      }),
      { seed: 7 },
    );
  });

  it('round-trips summaries and post bodies', () => {
    const s = { generation: 2n, version: 17n, pins: [5n, 4n], postCount: 12n };
    expect(decodeSummary(encodeSummary(s, cacheKeys.order(9n, 2n, 17n)))).toEqual(s);
    const p = {
      postId: 10n,
      authorId: 3n,
      caption: 'hello',
      mediaUrl: undefined,
      createdAt: new Date(1_700_000_000_000),
      collaborators: [7n, 8n],
    };
    expect(decodePost(encodePost(p))).toEqual(p);
  });

  it('treats corrupt values as misses, never as data', () => {
    for (const raw of ['', 'nope', '{}', '{"g":"1","v":"x","p":[],"e":[],"c":true}', '[]']) {
      expect(decodeOrder(raw)).toBeUndefined();
      expect(decodeSummary(raw)).toBeUndefined();
      expect(decodePost(raw)).toBeUndefined();
    }
    expect(decodeOverrides(Buffer.alloc(7))).toBeUndefined();
    const rows = encodeOverrides([{ postId: 1n, key: 2n, movedVersion: 3n }]);
    expect(decodeOverrides(rows.subarray(0, rows.length - 1))).toBeUndefined();
  });

  it('puts profile, generation and version into every grid-derived key', () => {
    expect(cacheKeys.order(42n, 3n, 9n)).toBe('grid:{42}:g3:v9');
    expect(cacheKeys.overrides(42n, 3n, 9n)).toBe('ovr:{42}:g3:v9');
    expect(cacheKeys.summary(42n)).toBe('profile:{42}');
  });
});

describe('meetsMin (read-your-writes floor)', () => {
  it('compares generation before version', () => {
    expect(meetsMin({ generation: 2n, version: 1n }, { generation: 1n, version: 50n })).toBe(true);
    expect(meetsMin({ generation: 1n, version: 50n }, { generation: 2n, version: 1n })).toBe(false);
    expect(meetsMin({ generation: 1n, version: 5n }, { generation: 1n, version: 5n })).toBe(true);
    expect(meetsMin({ generation: 1n, version: 4n }, { generation: 1n, version: 5n })).toBe(false);
    expect(meetsMin({ generation: 1n, version: 4n }, undefined)).toBe(true);
    expect(meetsMin({ generation: 3n, version: 4n }, { version: 5n })).toBe(false);
  });
});
