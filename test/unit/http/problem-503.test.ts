/**
 * The 503 answers: each type, its Retry-After and advice, and the one log line per 503.
 */
import { errors } from 'cassandra-driver';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { PROBLEM_BASE, onError, problemOf } from '../../../src/http/problem.js';
import { mapUnavailable } from '../../../src/store/cql-errors.js';

const busy = () =>
  new errors.NoHostAvailableError({
    '127.0.0.1:9042': new errors.BusyConnectionError('127.0.0.1:9042', 2048, 1),
  });

function appThrowing(err: Error, answered = false) {
  const lines: string[] = [];
  const app = new Hono();
  app.onError(
    onError(
      (msg, cause) => lines.push(`${msg} ${String(cause)}`),
      () => answered,
    ),
  );
  app.get('/x', () => {
    throw err;
  });
  return { app, lines };
}

describe('503 answers', () => {
  it('write_outcome_unknown: 503, Retry-After, and the detail says the keyed retry is safe', () => {
    const p = problemOf(new DomainError('write_outcome_unknown', 'Cassandra stalled'));
    expect(p.status).toBe(503);
    expect(p.headers).toEqual({ 'retry-after': '1' });
    expect(p.detail).toMatch(/^Cassandra stalled\. Retrying with the same Idempotency-Key is safe/);
  });

  it('unavailable from the driver: 503 with Retry-After, no driver text in the body', async () => {
    const { app } = appThrowing(mapUnavailable(busy()) as Error);
    const res = await app.request('/x');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.type).toBe(`${PROBLEM_BASE}unavailable`);
    expect(JSON.stringify(body)).not.toContain('Busy');
  });

  it('logs every 503 on one line with the class and message of its cause', async () => {
    const { app, lines } = appThrowing(mapUnavailable(busy()) as Error);
    await app.request('/x');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^503 unavailable GET \/x NoHostAvailableError: 127\.0\.0\.1:9042: BusyConnectionError: All connections/,
    );
    expect(lines[0]).not.toContain('\n');
    const contention = appThrowing(new DomainError('contention', 'lost every CAS'));
    await contention.app.request('/x');
    expect(contention.lines).toEqual(['503 contention GET /x DomainError: lost every CAS']);
  });

  it('does not log a handler error the deadline already answered (it logs that one itself)', async () => {
    const { app, lines } = appThrowing(mapUnavailable(busy()) as Error, true);
    await app.request('/x');
    expect(lines).toEqual([]);
  });
});
