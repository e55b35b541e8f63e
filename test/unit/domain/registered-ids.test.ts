/**
 * The rule for a platform's own post IDs (registeredCreatedAt in src/domain/ids.ts): any ID in
 * regrid's layout whose time is not in the future is accepted, `created_at` must be the time it
 * encodes to the millisecond, and the error names the field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../../src/domain/errors.js';
import {
  composeId,
  REGISTERED_ID_MAX_AHEAD_MS,
  REGRID_EPOCH_MS,
  registeredCreatedAt,
} from '../../../src/domain/ids.js';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const past = fc.integer({ min: REGRID_EPOCH_MS, max: NOW });
const parts = fc.record({
  worker: fc.integer({ min: 0, max: 8191 }),
  sequence: fc.integer({ min: 0, max: 1023 }),
});

const fieldOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    if (isDomainError(err) && err.code === 'invalid_request')
      return String((err.details as { field?: string }).field);
    throw err;
  }
  return undefined;
};

describe('registered post IDs', () => {
  it('accepts any past ID, with or without the matching created_at', () => {
    fc.assert(
      fc.property(past, parts, (ms, p) => {
        const id = composeId({ ms, ...p });
        expect(registeredCreatedAt(id, undefined, NOW).getTime()).toBe(ms);
        expect(registeredCreatedAt(id, new Date(ms), NOW).getTime()).toBe(ms);
      }),
      { seed: 20261202 },
    );
  });

  it('refuses a created_at off by any number of milliseconds', () => {
    fc.assert(
      fc.property(past, parts, fc.integer({ min: -86_400_000, max: 86_400_000 }), (ms, p, d) => {
        fc.pre(d !== 0);
        const id = composeId({ ms, ...p });
        expect(fieldOf(() => registeredCreatedAt(id, new Date(ms + d), NOW))).toBe('created_at');
      }),
      { seed: 20261203 },
    );
  });

  it('refuses an ID more than the allowed skew in the future, accepts one within it', () => {
    const ahead = (d: number) => composeId({ ms: NOW + d, worker: 1, sequence: 0 });
    expect(
      fieldOf(() => registeredCreatedAt(ahead(REGISTERED_ID_MAX_AHEAD_MS + 1), undefined, NOW)),
    ).toBe('post_id');
    expect(registeredCreatedAt(ahead(REGISTERED_ID_MAX_AHEAD_MS), undefined, NOW).getTime()).toBe(
      NOW + REGISTERED_ID_MAX_AHEAD_MS,
    );
  });
});
