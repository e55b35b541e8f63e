/**
 * Query bounds of the media list. `since`/`until` become the lowest ID of a millisecond, so they
 * must name an instant an ID can encode (REGRID_EPOCH .. +2^40-1 ms); anything else is a 400 at
 * the boundary instead of a RangeError deep in the ID layout.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TIMESTAMP_MS, REGRID_EPOCH_MS, lowestIdAt } from '../../../src/domain/ids.js';
import { MediaQuery, formatUnixSeconds } from '../../../src/http/edit-schemas.js';

const SEED = 20260602;
const FIRST_MS = REGRID_EPOCH_MS;
const LAST_MS = REGRID_EPOCH_MS + Number(MAX_TIMESTAMP_MS);
const ok = (q: Record<string, string>) => MediaQuery.safeParse(q).success;

describe('MediaQuery time bounds', () => {
  it('accepts exactly the instants IDs can encode, to the millisecond', () => {
    expect(LAST_MS).toBe(2393351627775);
    for (const key of ['since', 'until']) {
      expect(ok({ [key]: '1293840000' }), key).toBe(true); // the epoch
      expect(ok({ [key]: '2393351627.775' }), key).toBe(true); // the last millisecond
      expect(ok({ [key]: '1293839999.999' }), key).toBe(false);
      expect(ok({ [key]: '2393351627.776' }), key).toBe(false);
      expect(ok({ [key]: '2393351628' }), key).toBe(false);
      expect(ok({ [key]: '99999999999' }), key).toBe(false);
      expect(ok({ [key]: '0' }), key).toBe(false);
    }
  });

  it('turns seconds with up to 3 decimals into exact milliseconds', () => {
    const q = MediaQuery.parse({ since: '1700000000.5', until: '1700000001.025' });
    expect(q.since).toBe(1700000000500);
    expect(q.until).toBe(1700000001025);
    expect(MediaQuery.parse({ since: '1700000000' }).since).toBe(1700000000000);
  });

  it('rejects anything but a plain decimal number of seconds', () => {
    for (const bad of [
      '',
      ' 1700000000',
      '1700000000 ',
      '+1700000000',
      '-1',
      '1.7e9',
      '0x65536f00',
      'NaN',
      'Infinity',
      '1700000000.',
      '1700000000.1234',
      '01700000000',
      'abc',
    ]) {
      expect(ok({ since: bad }), JSON.stringify(bad)).toBe(false);
    }
  });

  it('every accepted instant is a valid ID bound and re-renders to itself (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST_MS, max: LAST_MS }), (ms) => {
        const text = formatUnixSeconds(ms);
        const q = MediaQuery.parse({ since: text, until: text });
        expect(q.since).toBe(ms);
        expect(q.until).toBe(ms);
        expect(() => lowestIdAt(ms)).not.toThrow();
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('every instant outside the range is refused (property)', () => {
    const outside = fc.oneof(
      fc.integer({ min: 0, max: FIRST_MS - 1 }),
      fc.integer({ min: LAST_MS + 1, max: 999_999_999_999_999 }),
    );
    fc.assert(
      fc.property(outside, (ms) => {
        expect(ok({ since: formatUnixSeconds(ms) })).toBe(false);
        expect(ok({ until: formatUnixSeconds(ms) })).toBe(false);
      }),
      { seed: SEED + 1, numRuns: 500 },
    );
  });

  it('`before` is a canonical ID', () => {
    expect(ok({ before: '1' })).toBe(true);
    expect(ok({ before: '01' })).toBe(false);
    expect(ok({ before: '0' })).toBe(false);
    expect(ok({ before: '9223372036854775808' })).toBe(false);
  });
});
