import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatEtag,
  ifMatchSatisfied,
  ifNoneMatchMatches,
  parseEtag,
  parseEtagHeader,
} from '../../../src/domain/etag.js';
import { DomainError } from '../../../src/domain/errors.js';

const SEED = 20260504;
const MAX = (1n << 63n) - 1n;
const v = (generation: bigint, version: bigint) => ({ generation, version });
const cur = v(1n, 42n);

describe('etag format/parse', () => {
  it('formats a strong, quoted "<generation>.<version>"', () => {
    expect(formatEtag(cur)).toBe('"1.42"');
    expect(formatEtag(v(3n, 0n))).toBe('"3.0"');
    expect(() => formatEtag(v(0n, 1n))).toThrow(RangeError);
    expect(() => formatEtag(v(1n, -1n))).toThrow(RangeError);
  });

  it('round-trips (property)', () => {
    const arb = fc.record({
      generation: fc.bigInt({ min: 1n, max: MAX }),
      version: fc.bigInt({ min: 0n, max: MAX }),
    });
    fc.assert(
      fc.property(arb, (x) => {
        expect(parseEtag(formatEtag(x))).toEqual({ weak: false, version: x });
        expect(parseEtag(`W/${formatEtag(x)}`)).toEqual({ weak: true, version: x });
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('keeps foreign tags without a version and rejects malformed ones', () => {
    for (const foreign of [
      '"abc"',
      '"01.2"',
      '"1.02"',
      '"0.5"',
      '"1.2.3"',
      '""',
      `"1.${1n << 63n}"`,
    ]) {
      expect(parseEtag(foreign)).toEqual({ weak: false, version: undefined });
    }
    for (const bad of [
      '42',
      '1.42',
      '"1.42',
      'w/"1.42"',
      'W/ "1.42"',
      '"1 42"',
      '"1.42" "1.43"',
      '',
    ]) {
      expect(parseEtag(bad)).toBeUndefined();
    }
  });

  it('parses lists, tolerating spaces and empty elements', () => {
    expect(parseEtagHeader('*')).toBe('*');
    expect(parseEtagHeader(' "1.41" ,W/"1.42",, "x,y" ')).toEqual([
      { weak: false, version: v(1n, 41n) },
      { weak: true, version: v(1n, 42n) },
      { weak: false, version: undefined },
    ]);
    for (const bad of ['42', '"1.42" 43', '', ' , ', '*, "1.42"']) {
      let caught: unknown;
      try {
        parseEtagHeader(bad);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(DomainError);
      expect((caught as DomainError).code).toBe('invalid_request');
    }
  });
});

describe('conditional request comparison', () => {
  it('If-Match is strong: weak tags and other versions never match', () => {
    expect(ifMatchSatisfied('"1.42"', cur)).toBe(true);
    expect(ifMatchSatisfied('"1.41", "1.42"', cur)).toBe(true);
    expect(ifMatchSatisfied('*', cur)).toBe(true);
    expect(ifMatchSatisfied('W/"1.42"', cur)).toBe(false);
    expect(ifMatchSatisfied('"1.41"', cur)).toBe(false);
    expect(ifMatchSatisfied('"2.42"', cur)).toBe(false); // same version, other generation
    expect(ifMatchSatisfied('"abc"', cur)).toBe(false);
  });

  it('If-None-Match is weak: W/ tags of the current version match', () => {
    expect(ifNoneMatchMatches('W/"1.42"', cur)).toBe(true);
    expect(ifNoneMatchMatches('"1.42"', cur)).toBe(true);
    expect(ifNoneMatchMatches('*', cur)).toBe(true);
    expect(ifNoneMatchMatches('"1.43", W/"2.42"', cur)).toBe(false);
  });
});
