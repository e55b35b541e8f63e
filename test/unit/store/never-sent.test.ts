/**
 * Which driver failures say a write was never sent (503 `unavailable`) and which say it may have
 * reached a coordinator (503 `write_outcome_unknown`), built with the driver's own error classes
 * in the shapes cassandra-driver 4.10 produces them (lib/request-handler.js, host-connection-pool.js,
 * prepare-handler.js, writers.js, connection.js). The same cases against the real node behind a
 * proxy: test/integration/core/unsent-503.test.ts.
 */
import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { StatementScope } from '../../../src/store/statement-scope.js';

const HOST = '127.0.0.1:9042';

/** A driver socket error ("Socket was closed"), written or not, with the Node error under it. */
function socketClosed(under: Error, notWritten = false): Error {
  // The driver's class (lib/errors.js), abstract in its typings only.
  const DriverError = errors.DriverError as unknown as new (message: string) => Error;
  const err = new DriverError('Socket was closed');
  Object.assign(err, { isSocketError: true, innerError: under });
  if (notWritten) Object.assign(err, { requestNotWritten: true });
  return err;
}

function nodeError(code: string, syscall: string): Error {
  return Object.assign(new Error(`${syscall} ${code} 127.0.0.1:9042`), { code, syscall });
}

const noHost = (inner: unknown) => new errors.NoHostAvailableError({ [HOST]: inner });

/** The PREPARE of the statement failed on every host: the prepare handler tags the query. */
function prepareFailed(inner: unknown): Error {
  return Object.assign(noHost(inner), { query: 'UPDATE t SET a = 1 WHERE k = 1' });
}

/** What a write answers, in a request's scope, when the driver fails with `err`. */
async function answer(err: unknown): Promise<string> {
  const cql = cqlOf({
    execute: () => Promise.reject(err),
    batch: () => Promise.reject(err),
  });
  const scope = new StatementScope();
  return cql.batch([{ query: 'UPDATE t SET a = 1 WHERE k = 1 IF a = 0' }], { scope }).then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.code : (e as Error).name),
  );
}

const NEVER_SENT: Array<[string, unknown]> = [
  ['every host down', noHost('Host considered as DOWN')],
  ['no connection in the pool', noHost(new Error('No connection available'))],
  ['every connection busy', noHost(new errors.BusyConnectionError(HOST, 2048, 1))],
  [
    'the socket failed before the request was written',
    noHost(socketClosed(nodeError('EPIPE', 'write'), true)),
  ],
  ['the connection could not be opened', noHost(nodeError('ECONNREFUSED', 'connect'))],
  [
    'a connection that never opened was closed',
    noHost(socketClosed(nodeError('ECONNREFUSED', 'connect'))),
  ],
  [
    'the statement could not be prepared',
    prepareFailed(socketClosed(nodeError('ECONNRESET', 'read'))),
  ],
  [
    'the statement could not be prepared in time',
    prepareFailed(new errors.OperationTimedOutError('The host did not reply before timeout', HOST)),
  ],
  [
    'the coordinator refused it (Unavailable)',
    new errors.ResponseError(types.responseErrorCodes.unavailableException, 'Cannot achieve'),
  ],
];

const MAY_HAVE_REACHED: Array<[string, unknown]> = [
  ['no answer in time', new errors.OperationTimedOutError('The host did not reply', HOST)],
  ['the connection closed after it was written', socketClosed(nodeError('ECONNRESET', 'read'))],
  [
    'a retried statement timed out, then no host was left',
    noHost(new errors.OperationTimedOutError('The host did not reply', HOST)),
  ],
  [
    'one host down, another closed after it was written',
    new errors.NoHostAvailableError({
      '127.0.0.2:9042': 'Host considered as DOWN',
      [HOST]: socketClosed(nodeError('ECONNRESET', 'read')),
    }),
  ],
  [
    'a write timeout at the coordinator',
    new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'Operation timed out'),
  ],
];

describe('a write the driver never sent is unavailable', () => {
  for (const [what, err] of NEVER_SENT) {
    it(what, async () => expect(await answer(err)).toBe('unavailable'));
  }
});

describe('a write that may have reached a coordinator is write_outcome_unknown', () => {
  for (const [what, err] of MAY_HAVE_REACHED) {
    it(what, async () => expect(await answer(err)).toBe('write_outcome_unknown'));
  }
});
