/**
 * The Cql wrapper's own logic over a scripted driver client (the driver's real error classes):
 * what a failure says about a request's writes. Against the real node
 * the same paths run in test/integration/core/{read-load,deadline}.test.ts.
 */
import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { causeLine } from '../../../src/http/problem.js';
import { cqlOf, type Cql } from '../../../src/store/cassandra.js';
import { StatementScope } from '../../../src/store/statement-scope.js';

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

describe('what a failure says about the writes', () => {
  it('a write that timed out: outcome unknown; one the driver could not send: unavailable', async () => {
    const timeout = cqlOf(
      scripted(() => () => Promise.reject(new errors.OperationTimedOutError('timed out'))).client,
    );
    expect(await code(timeout.batch([{ query: 'UPDATE t SET a = 1' }]))).toBe(
      'write_outcome_unknown',
    );
    expect(await code(timeout.execute('SELECT 1 FROM t'))).toBe('unavailable');
    const notSent = cqlOf(scripted(() => () => Promise.reject(busy())).client);
    expect(await code(notSent.execute('INSERT INTO t (a) VALUES (1)'))).toBe('unavailable');
  });

  it('within a request: after an applied write any availability failure is outcome unknown; after a lost CAS it is not', async () => {
    const s = scripted((q) =>
      q.startsWith('SELECT')
        ? () => Promise.reject(busy())
        : () => Promise.resolve(applied(!q.includes('IF'))),
    );
    const cql = cqlOf(s.client);
    const afterWrite = async (scope: StatementScope) => {
      await cql.execute('INSERT INTO t (a) VALUES (1)', [], { scope });
      return code(cql.execute('SELECT a FROM t', [], { scope }));
    };
    expect(await afterWrite(new StatementScope())).toBe('write_outcome_unknown');
    const afterLostCas = async (scope: StatementScope) => {
      await cql.batch([{ query: 'UPDATE t SET v = 2 WHERE k = 1 IF v = 1' }], { scope });
      return code(cql.execute('SELECT a FROM t', [], { scope }));
    };
    expect(await afterLostCas(new StatementScope())).toBe('unavailable');
  });

  it('leaves a Paxos write timeout raw for the grid writer, and keeps the driver error as the cause', async () => {
    const cas = new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS timeout');
    Object.assign(cas, { writeType: 'CAS' });
    const cql = cqlOf(scripted(() => () => Promise.reject(cas)).client);
    await expect(cql.batch([{ query: 'UPDATE t SET v = 2 IF v = 1' }])).rejects.toBe(cas);

    const err = await cqlOf(scripted(() => () => Promise.reject(busy())).client)
      .execute('SELECT 1 FROM t')
      .catch((e: unknown) => e);
    expect(causeLine(err)).toMatch(
      /^NoHostAvailableError: 127\.0\.0\.1:9042: BusyConnectionError: All connections to host \S+ are busy/,
    );
  });
});
