/**
 * The client package's generated API description (client/src/api.gen.ts) against the server's
 * registry: at run time, the committed file equals a fresh rendering (else `npm run gen:client`);
 * at compile time (`npm run typecheck`), every operation's params, query, body and result types
 * are mutually assignable with the zod-derived ones, and the problem codes are the server's. A
 * wrong conversion in tools/client-api/json-schema-ts.ts fails the typecheck naming the
 * operation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type * as Server from '../../../src/http/api/operations.js';
import type { ProblemCode as ServerProblemCode } from '../../../src/http/api/operation.js';
import { CLIENT_API_FILE, renderClientApi } from '../../../tools/client-api/generate.js';
import {
  ROUTES,
  type Operations,
  type OperationId,
  type ProblemCode,
} from '../../../client/src/api.gen.js';
import { operations } from '../../../src/http/api/operations.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The keys whose check is not `true`: `never` when all pass. */
type Failing<T> = { [K in keyof T]: T[K] extends true ? never : K }[keyof T];

type SOp<K extends Server.OperationId> = Server.Operations[K];
type SBody<K extends Server.OperationId> =
  SOp<K> extends { body: infer S extends z.ZodType } ? z.input<S> : never;
type SQuery<K extends Server.OperationId> =
  SOp<K> extends { query: infer S extends z.ZodType } ? z.input<S> : never;
type SResult<K extends Server.OperationId> = SOp<K>['ok'] extends {
  schema: infer S extends z.ZodType;
}
  ? z.output<S>
  : string;
type SParams<K extends Server.OperationId> =
  SOp<K> extends { params: infer P extends Record<string, z.ZodType> }
    ? { [n in keyof P]: z.input<P[n]> }
    : Record<string, never>;

/**
 * Query, body and result must be the same types both ways; path parameters may be narrower in
 * the client (an enum over a runtime list, like the docs assets, is `string` to the compiler).
 */
type Checks = {
  [K in OperationId & Server.OperationId]: [
    Same<
      [Operations[K]['query'], Operations[K]['body'], Operations[K]['result']],
      [SQuery<K>, SBody<K>, SResult<K>]
    >,
    [Operations[K]['params']] extends [SParams<K>] ? true : false,
  ] extends [true, true]
    ? true
    : false;
};

// Compile-time checks: a mismatch is a type error on these lines.
const sameOperations: Same<OperationId, Server.OperationId> = true;
const sameProblemCodes: Same<ProblemCode, ServerProblemCode> = true;
const noMismatch: [Failing<Checks>] extends [never] ? 'ok' : Failing<Checks> = 'ok';

describe('client/src/api.gen.ts', () => {
  it('is what the generator makes of the registry now (npm run gen:client)', async () => {
    expect(readFileSync(CLIENT_API_FILE, 'utf8')).toBe(await renderClientApi());
  });

  it('has the route table of the registry', () => {
    expect([sameOperations, sameProblemCodes, noMismatch]).toEqual([true, true, 'ok']);
    for (const [id, op] of Object.entries(operations)) {
      expect(ROUTES[id as OperationId]).toEqual({
        method: op.method.toUpperCase(),
        path: op.path,
        auth: op.auth,
        idempotent: 'idempotent' in op && op.idempotent === true,
      });
    }
    expect(Object.keys(ROUTES)).toEqual(Object.keys(operations));
  });
});
