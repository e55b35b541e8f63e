/**
 * The durable path's verdict (examples/feed/decide.ts durableVerdict): an event against a
 * profile's durable watermark, whose generation may be unknown after a grid read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { durableVerdict, type ChangeEvent } from '../../../examples/feed/decide.js';

const eventAt = (generation: bigint, version: bigint): ChangeEvent => ({
  profile_id: '12',
  generation: generation.toString(),
  version: version.toString(),
  at: '2026-12-02T13:00:00.000Z',
  kind: 'created',
  post_ids: ['987'],
});

const small = fc.bigInt({ min: 0n, max: 50n });

describe('feed: the durable verdict', () => {
  it('no state yet: repair (the grid is read)', () => {
    expect(durableVerdict(undefined, eventAt(1n, 1n))).toBe('repair');
  });

  it('same generation: the next version applies, at or below is a duplicate, further is a gap', () => {
    fc.assert(
      fc.property(small, small, small, (g, mark, v) => {
        const got = durableVerdict({ generation: g, version: mark }, eventAt(g, v));
        expect(got).toBe(v <= mark ? 'duplicate' : v === mark + 1n ? 'apply' : 'gap');
      }),
    );
  });

  it('an older generation is a duplicate, a newer one a repair, whatever the versions', () => {
    fc.assert(
      fc.property(small, small, small, small, (g, d, mark, v) => {
        const mk = { generation: g + 1n, version: mark };
        expect(durableVerdict(mk, eventAt(g, v))).toBe('duplicate');
        expect(durableVerdict(mk, eventAt(g + 2n + d, v))).toBe('repair');
      }),
    );
  });

  it('an unknown generation compares versions only', () => {
    fc.assert(
      fc.property(small, small, small, (g, mark, v) => {
        const got = durableVerdict({ generation: undefined, version: mark }, eventAt(g, v));
        expect(got).toBe(v <= mark ? 'duplicate' : v === mark + 1n ? 'apply' : 'gap');
      }),
    );
  });
});
