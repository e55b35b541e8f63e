/**
 * The Cql wrapper's own logic over a scripted driver client (the driver's real error classes):
 * the in-flight budget. Against the real node: test/integration/core/read-load.test.ts.
 */
import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { causeLine } from '../../../src/http/problem.js';
import { cqlOf, type Cql } from '../../../src/store/cassandra.js';

type Reply = () => Promise<types.ResultSet>;
const applied = (ok = true) => ({ wasApplied: () => ok, rows: [] }) as unknown as types.ResultSet;
const busy = () =>
  new errors.NoHostAvailableError({
    '127.0.0.1:9042': new errors.BusyConnectionError('127.0.0.1:9042', 2048, 1),
  });

/** A client whose every statement is answered by `reply`; counts what was actually sent. */
function scripted(reply: (query: string) => Reply) {
  const sent: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const track = async (q: string) => {
    sent.push(q);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await reply(q)();
    } finally {
      inFlight--;
    }
  };
  const client: Pick<Cql, 'execute' | 'batch'> = {
    execute: (q) => track(q),
    batch: (qs) => track(qs.map((s) => s.query).join('; ')),
  };
  return { client, sent, maxInFlight: () => maxInFlight };
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.code : (e as Error).name),
  );

describe('in-flight budget', () => {
  it('never hands the driver more than maxInFlight statements; the rest queue and all complete', async () => {
    const s = scripted(() => () => new Promise((r) => setTimeout(() => r(applied()), 5)));
    const cql = cqlOf(s.client, { maxInFlight: 8, maxQueued: 1000 });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => cql.execute('SELECT 1 FROM t')),
    );
    expect(results).toHaveLength(200);
    expect(s.maxInFlight()).toBe(8);
  });

  it('fails at once with unavailable when the queue is full, without sending', async () => {
    const s = scripted(() => () => new Promise((r) => setTimeout(() => r(applied()), 20)));
    const cql = cqlOf(s.client, { maxInFlight: 1, maxQueued: 1 });
    const outcomes = await Promise.all([1, 2, 3].map(() => code(cql.execute('SELECT 1 FROM t'))));
    expect(outcomes).toEqual(['ok', 'ok', 'unavailable']);
    expect(s.sent).toHaveLength(2);
  });
});

describe('failures', () => {
  it('keeps the driver error as the cause, named with its class on one line', async () => {
    const err = await cqlOf(scripted(() => () => Promise.reject(busy())).client)
      .execute('SELECT 1 FROM t')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('unavailable');
    expect(causeLine(err)).toMatch(
      /^NoHostAvailableError: 127\.0\.0\.1:9042: BusyConnectionError: All connections to host \S+ are busy/,
    );
  });
});
