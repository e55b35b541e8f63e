import { describe, expect, it } from 'vitest';
import { decodePost, decodeSummary, encodePost, encodeSummary } from '../../../src/cache/codec.js';
import { meetsMin } from '../../../src/domain/grid-version.js';
import { cacheKeys } from '../../../src/cache/keys.js';

describe('cache codec', () => {
  it('round-trips summaries and post bodies', () => {
    const s = { generation: 2n, version: 17n };
    expect(decodeSummary(encodeSummary(s, cacheKeys.state(9n, 2n, 17n)))).toEqual(s);
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
    for (const raw of ['', 'nope', '{}', '{"g":"1","v":"x","k":"grid:{1}:g1:vx"}', '[]']) {
      expect(decodeSummary(raw)).toBeUndefined();
      expect(decodePost(raw)).toBeUndefined();
    }
  });

  it('puts profile, generation and version into every grid-derived key', () => {
    expect(cacheKeys.state(42n, 3n, 9n)).toBe('grid:{42}:g3:v9');
    expect(cacheKeys.rendered(42n, 3n, 9n, ':l24:cx')).toBe('grid:{42}:g3:v9:l24:cx');
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
