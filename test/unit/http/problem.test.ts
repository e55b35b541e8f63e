import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError, type ErrorCode } from '../../../src/domain/errors.js';
import { PROBLEM_BASE, problemOf, problemResponse, statusOf } from '../../../src/http/problem.js';

describe('problem mapping', () => {
  it.each<[ErrorCode, number]>([
    ['invalid_request', 400],
    ['bad_cursor', 400],
    ['unauthorized', 401],
    ['post_not_on_grid', 404],
    ['anchor_not_on_grid', 409],
    ['precondition_failed', 412],
    ['idempotency_mismatch', 422],
    ['precondition_required', 428],
    ['rate_limited', 429],
    ['contention', 503],
  ])('%s → %i', (code, status) => {
    expect(statusOf(code)).toBe(status);
    expect(problemOf(new DomainError(code, 'x')).status).toBe(status);
  });

  it('puts details in extension members (bigints as strings), keeps driver causes out, sets Retry-After', async () => {
    const p = problemOf(
      new DomainError('contention', 'busy', {
        retry_after_s: 2,
        grid_version: 5n,
        cause: 'driver said',
      }),
    );
    expect(p.headers).toEqual({ 'retry-after': '2' });
    const res = problemResponse(p);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await res.json();
    expect(body).toMatchObject({
      type: `${PROBLEM_BASE}contention`,
      status: 503,
      grid_version: '5',
    });
    expect(body).not.toHaveProperty('cause');
  });

  it('zod and JSON syntax errors are 400 invalid_request; unknown errors are an opaque 500', () => {
    const zerr = z.strictObject({ a: z.string() }).safeParse({ b: 1 }).error!;
    expect(problemOf(zerr)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(problemOf(new SyntaxError('bad'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    const internal = problemOf(new Error('secret table name'));
    expect(internal).toMatchObject({ status: 500, code: 'internal' });
    expect(internal.detail).not.toContain('secret');
  });
});

describe('idempotency_in_flight', () => {
  it('asks for a retry shortly while the key is being served, not when the outcome is unknown', () => {
    const busy = problemOf(new DomainError('idempotency_in_flight', 'still running', {}));
    expect(busy.status).toBe(409);
    expect(busy.headers?.['retry-after']).toBe('1');
    const unknown = problemOf(
      new DomainError('idempotency_in_flight', 'may have applied', { outcome: 'unknown' }),
    );
    expect(unknown.headers?.['retry-after']).toBeUndefined();
  });
});
