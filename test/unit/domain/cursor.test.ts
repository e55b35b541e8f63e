import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  compareGridVersions,
  decodeCursor,
  encodeCursor,
  type Cursor,
} from '../../../src/domain/cursor.js';
import { DomainError } from '../../../src/domain/errors.js';

const SEED = 20260502;
const SECRET = 'unit-test-cursor-secret-0123456789';
const PROFILE = 4_212_987_699_721_631_744n; // the grid the cursors are issued for
const MAX = (1n << 63n) - 1n;
const sample: Cursor = {
  key: 6_917_529_027_641_081_857n,
  postId: 42n,
  version: 7n,
  generation: 1n,
};
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const cursorArb = fc.record({
  key: fc.bigInt({ min: 1n, max: MAX }),
  postId: fc.bigInt({ min: 1n, max: MAX }),
  version: fc.bigInt({ min: 0n, max: MAX }),
  generation: fc.bigInt({ min: 1n, max: MAX }),
});

function expectBad(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(DomainError);
  expect((caught as DomainError).code).toBe('bad_cursor');
}

/** Builds a correctly signed token around an arbitrary body, mirroring the documented format. */
function signRaw(payload: string, format = 2, secret = SECRET, profile = PROFILE): string {
  const body = Buffer.concat([Buffer.of(format), Buffer.from(payload, 'utf8')]);
  const p = Buffer.alloc(8);
  p.writeBigUInt64BE(profile);
  const mac = createHmac('sha256', secret)
    .update('regrid/cursor\0')
    .update(p)
    .update(body)
    .digest();
  return Buffer.concat([body, mac]).toString('base64url');
}

describe('cursor encoding', () => {
  it('round-trips any valid cursor (property)', () => {
    fc.assert(
      fc.property(cursorArb, (c) => {
        const token = encodeCursor(c, SECRET, PROFILE);
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeCursor(token, SECRET, PROFILE)).toEqual(c);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('accepts a Uint8Array secret equal to the string secret', () => {
    const token = encodeCursor(sample, SECRET, PROFILE);
    expect(decodeCursor(token, new TextEncoder().encode(SECRET), PROFILE)).toEqual(sample);
  });

  it('matches the documented layout (guards against silent format drift)', () => {
    const json = '{"k":"6917529027641081857","p":"42","v":"7","g":"1"}';
    expect(encodeCursor(sample, SECRET, PROFILE)).toBe(signRaw(json));
  });

  it('rejects every single-byte change of the decoded token', () => {
    const raw = Buffer.from(encodeCursor(sample, SECRET, PROFILE), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      for (const flip of [0x01, 0x80, 0xff]) {
        const t = Buffer.from(raw);
        t[i] = t[i]! ^ flip;
        expectBad(() => decodeCursor(t.toString('base64url'), SECRET, PROFILE));
      }
    }
  });

  it('rejects every single-character change of the token text', () => {
    const token = encodeCursor(sample, SECRET, PROFILE);
    for (let i = 0; i < token.length; i++) {
      for (const ch of B64URL) {
        if (ch === token[i]) continue;
        expectBad(() => decodeCursor(token.slice(0, i) + ch + token.slice(i + 1), SECRET, PROFILE));
      }
    }
  });

  it('rejects every truncation and any extension', () => {
    const token = encodeCursor(sample, SECRET, PROFILE);
    for (let n = 0; n < token.length; n++)
      expectBad(() => decodeCursor(token.slice(0, n), SECRET, PROFILE));
    expectBad(() => decodeCursor(token + 'A', SECRET, PROFILE));
    expectBad(() => decodeCursor(token + '=', SECRET, PROFILE));
    expectBad(() => decodeCursor('A'.repeat(10_000), SECRET, PROFILE));
  });

  it('rejects a cursor signed with another secret', () => {
    fc.assert(
      fc.property(cursorArb, fc.string({ minLength: 16 }), (c, other) => {
        fc.pre(other !== SECRET);
        expectBad(() => decodeCursor(encodeCursor(c, other, PROFILE), SECRET, PROFILE));
      }),
      { seed: SEED + 1, numRuns: 100 },
    );
  });

  it("rejects a cursor issued for another profile's grid (property)", () => {
    fc.assert(
      fc.property(cursorArb, fc.bigInt({ min: 1n, max: MAX }), (c, other) => {
        fc.pre(other !== PROFILE);
        const token = encodeCursor(c, SECRET, PROFILE);
        expectBad(() => decodeCursor(token, SECRET, other));
        expect(decodeCursor(encodeCursor(c, SECRET, other), SECRET, other)).toEqual(c);
      }),
      { seed: SEED + 3, numRuns: 200 },
    );
    // Neighbouring IDs too (a fixed-width profile field, not a decimal prefix).
    const token = encodeCursor(sample, SECRET, 12n);
    for (const other of [1n, 2n, 120n, 13n, 11n, 1n << 8n]) {
      expectBad(() => decodeCursor(token, SECRET, other));
    }
    // The format-1 layout (no profile in the MAC) no longer verifies.
    const json = '{"k":"6917529027641081857","p":"42","v":"7","g":"1"}';
    const body = Buffer.concat([Buffer.of(1), Buffer.from(json, 'utf8')]);
    const v1mac = createHmac('sha256', SECRET).update('regrid/cursor\0').update(body).digest();
    expectBad(() =>
      decodeCursor(Buffer.concat([body, v1mac]).toString('base64url'), SECRET, PROFILE),
    );
  });

  it('rejects signed tokens whose payload is not a valid cursor', () => {
    expectBad(() => decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"1"', 1), SECRET, PROFILE)); // bad JSON
    expectBad(() => decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"1"}', 1), SECRET, PROFILE)); // format
    expectBad(() => decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"1"}', 3), SECRET, PROFILE)); // format
    expectBad(() => decodeCursor(signRaw('[1,2,3,4]'), SECRET, PROFILE));
    expectBad(() => decodeCursor(signRaw('null'), SECRET, PROFILE));
    expectBad(() => decodeCursor(signRaw('{"k":1,"p":"1","v":"0","g":"1"}'), SECRET, PROFILE)); // number
    expectBad(() => decodeCursor(signRaw('{"k":"01","p":"1","v":"0","g":"1"}'), SECRET, PROFILE)); // leading 0
    expectBad(() => decodeCursor(signRaw('{"k":"-1","p":"1","v":"0","g":"1"}'), SECRET, PROFILE));
    expectBad(() => decodeCursor(signRaw('{"k":"0","p":"1","v":"0","g":"1"}'), SECRET, PROFILE)); // key 0
    expectBad(() => decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"0"}'), SECRET, PROFILE)); // gen 0
    expectBad(() =>
      decodeCursor(signRaw(`{"k":"${1n << 63n}","p":"1","v":"0","g":"1"}`), SECRET, PROFILE),
    );
    expectBad(() =>
      decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"1","x":"1"}'), SECRET, PROFILE),
    );
    expectBad(() => decodeCursor(signRaw('{"k":"1","p":"1","v":"0"}'), SECRET, PROFILE));
    // the well-formed control case passes, so the rejections above are about the payload
    expect(decodeCursor(signRaw('{"k":"1","p":"1","v":"0","g":"1"}'), SECRET, PROFILE)).toEqual({
      key: 1n,
      postId: 1n,
      version: 0n,
      generation: 1n,
    });
  });

  it('refuses to encode out-of-range cursors and short secrets', () => {
    expect(() => encodeCursor({ ...sample, key: 0n }, SECRET, PROFILE)).toThrow(RangeError);
    expect(() => encodeCursor({ ...sample, postId: MAX + 1n }, SECRET, PROFILE)).toThrow(
      RangeError,
    );
    expect(() => encodeCursor({ ...sample, version: -1n }, SECRET, PROFILE)).toThrow(RangeError);
    expect(() => encodeCursor({ ...sample, generation: 0n }, SECRET, PROFILE)).toThrow(RangeError);
    expect(() => encodeCursor(sample, 'short', PROFILE)).toThrow(RangeError);
    expect(() => decodeCursor(encodeCursor(sample, SECRET, PROFILE), 'short', PROFILE)).toThrow(
      RangeError,
    );
    // The profile ID is the caller's (already validated) input: out of range is a server bug.
    expect(() => encodeCursor(sample, SECRET, 0n)).toThrow(RangeError);
    expect(() => encodeCursor(sample, SECRET, MAX + 1n)).toThrow(RangeError);
    expect(() => decodeCursor(encodeCursor(sample, SECRET, PROFILE), SECRET, -1n)).toThrow(
      RangeError,
    );
  });
});

describe('compareGridVersions', () => {
  it('compares generation first, then version', () => {
    expect(
      compareGridVersions({ generation: 2n, version: 0n }, { generation: 1n, version: 99n }),
    ).toBe(1);
    expect(
      compareGridVersions({ generation: 1n, version: 99n }, { generation: 2n, version: 0n }),
    ).toBe(-1);
    expect(
      compareGridVersions({ generation: 1n, version: 3n }, { generation: 1n, version: 4n }),
    ).toBe(-1);
    expect(
      compareGridVersions({ generation: 1n, version: 4n }, { generation: 1n, version: 3n }),
    ).toBe(1);
    expect(
      compareGridVersions({ generation: 5n, version: 4n }, { generation: 5n, version: 4n }),
    ).toBe(0);
  });

  it('is a total order consistent with lexicographic (generation, version) (property)', () => {
    const v = fc.record({
      generation: fc.bigInt({ min: 1n, max: 4n }),
      version: fc.bigInt({ min: 0n, max: 4n }),
    });
    fc.assert(
      fc.property(v, v, (a, b) => {
        const lex = a.generation * 10n + a.version - (b.generation * 10n + b.version);
        expect(compareGridVersions(a, b)).toBe(lex > 0n ? 1 : lex < 0n ? -1 : 0);
        expect(compareGridVersions(b, a)).toBe(-compareGridVersions(a, b) || 0);
      }),
      { seed: SEED + 2, numRuns: 200 },
    );
  });
});

describe('read mode', () => {
  const c: Cursor = { key: 900n, postId: 7n, version: 3n, generation: 1n };

  it('a chronological cursor says so; an override-mode cursor keeps the 4-field payload', () => {
    const chrono = decodeCursor(
      encodeCursor({ ...c, chronological: true }, SECRET, PROFILE),
      SECRET,
      PROFILE,
    );
    expect(chrono).toEqual({ ...c, chronological: true });
    const merged = decodeCursor(encodeCursor(c, SECRET, PROFILE), SECRET, PROFILE);
    expect(merged).toEqual(c);
    expect(merged.chronological).toBeUndefined();
  });

  it('refuses a mode field other than "c"', () => {
    const token = signRaw('{"k":"900","p":"7","v":"3","g":"1","m":"x"}');
    expect(() => decodeCursor(token, SECRET, PROFILE)).toThrow(DomainError);
  });
});
