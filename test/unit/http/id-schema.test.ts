/**
 * The one ID grammar of the API: canonical decimal (no sign, no leading zero, no whitespace),
 * 1..2^63-1. `IdString` (paths, query strings, bodies) and `parseId` (token subjects, CLIs) must
 * accept exactly the same spellings, so an ID that one entry point refuses is refused everywhere.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID, parseId } from '../../../src/domain/ids.js';
import { IdString, parseInput } from '../../../src/http/schemas.js';

const SEED = 20260601;
const acceptsParseId = (s: string) => {
  try {
    return parseId(s);
  } catch {
    return undefined;
  }
};
const acceptsSchema = (s: string) => {
  const r = IdString.safeParse(s);
  return r.success ? r.data : undefined;
};

describe('IdString', () => {
  it('rejects every non-canonical spelling of a valid ID', () => {
    for (const bad of [
      '01',
      '007',
      '00000000000000000001',
      '+1',
      '-1',
      ' 1',
      '1 ',
      '\t1',
      '1\n',
      '0',
      '9223372036854775808', // 2^63
      '18446744073709551615',
      '1e3',
      '0x1f',
      '1.0',
      '1_000',
      '١٢', // Arabic-Indic digits
      '',
    ]) {
      expect(IdString.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
      expect(() => parseInput(IdString, bad, 'profile_id'), JSON.stringify(bad)).toThrow();
    }
  });

  it('accepts the bounds and round-trips every valid ID (property)', () => {
    expect(acceptsSchema('1')).toBe(1n);
    expect(acceptsSchema(MAX_ID.toString())).toBe(MAX_ID);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_ID }), (id) => {
        expect(acceptsSchema(id.toString())).toBe(id);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('agrees with parseId on arbitrary strings, digit-heavy ones included (property)', () => {
    const digitish = fc.stringMatching(/^[ +\-0]{0,2}[0-9]{0,21}[ \n]?$/);
    const padded = fc
      .bigInt({ min: 0n, max: MAX_ID * 3n })
      .chain((n) => fc.constantFrom(`${n}`, `0${n}`, `+${n}`, ` ${n}`, `${n} `, `-${n}`));
    fc.assert(
      fc.property(fc.oneof(fc.string(), digitish, padded), (s) => {
        expect(acceptsSchema(s)).toBe(acceptsParseId(s));
      }),
      { seed: SEED + 1, numRuns: 2000 },
    );
  });
});
