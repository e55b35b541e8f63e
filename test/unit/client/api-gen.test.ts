/**
 * The client package's generated API description (client/src/api.gen.ts) against the server's
 * route definitions (src/http/api, whose app's OpenAPI document the generator reads): at run time, the
 * committed file equals a fresh rendering (else `npm run gen:client`) and its route table is the
 * definitions'; at compile time (`npm run typecheck`), every operation's params, query, body and
 * result types agree with the zod schemas the definitions carry, and the problem codes are the
 * server's. A wrong conversion in tools/client-api/json-schema-ts.ts fails the typecheck naming
 * the operation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as changes from '../../../src/http/api/ops-changes.js';
import * as grid from '../../../src/http/api/ops-grid.js';
import * as operations from '../../../src/http/api/ops-ops.js';
import * as posts from '../../../src/http/api/ops-posts.js';
import * as service from '../../../src/http/api/ops-service.js';
import type { ProblemCode as ServerProblemCode } from '../../../src/http/api/route.js';
import { CLIENT_API_FILE, renderClientApi } from '../../../tools/client-api/generate.js';
import {
  ROUTES,
  type Operations,
  type OperationId,
  type ProblemCode,
} from '../../../client/src/api.gen.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The keys whose check is not `true`: `never` when all pass. */
type Failing<T> = { [K in keyof T]: T[K] extends true ? never : K }[keyof T];

/** Every route definition (api/ops-*.ts) by its name, which is its operationId. */
const modules = { ...changes, ...grid, ...operations, ...posts, ...service };
type Modules = typeof modules;
type Routes = {
  [K in keyof Modules as Modules[K] extends { responses: object } ? K : never]: Modules[K];
};
const routes = Object.fromEntries(
  Object.entries(modules).filter(([, v]) => typeof v === 'object' && v && 'responses' in v),
) as Routes;
type ServerId = keyof Routes;
type SOp<K extends ServerId> = Routes[K];
type JsonOf<X> = X extends { content: { 'application/json': { schema: infer S } } } ? S : never;
type SBody<K extends ServerId> =
  SOp<K> extends { request: { body: infer B } } ? z.input<JsonOf<B> & z.ZodType> : never;
type SQuery<K extends ServerId> =
  SOp<K> extends { request: { query: infer S extends z.ZodType } } ? z.input<S> : never;
/** A JSON answer's output type; `string` for any other (a page, a file, the document). */
type Answer<X> = [JsonOf<X>] extends [never]
  ? string
  : [JsonOf<X>] extends [z.ZodType]
    ? z.output<JsonOf<X> & z.ZodType>
    : string;
type SResult<K extends ServerId> = SOp<K>['responses'] extends { 201: infer X }
  ? Answer<X>
  : SOp<K>['responses'] extends { 200: infer X }
    ? Answer<X>
    : never;
type SParams<K extends ServerId> =
  SOp<K> extends { request: { params: infer P extends z.ZodType } }
    ? z.input<P>
    : Record<string, never>;
/** A page size is the integer it is on the wire (the document's type), a string to zod. */
type Wire<Q> = [Q] extends [never] ? never : Omit<Q, 'limit'> & { limit?: unknown };

/**
 * Body and result must be the same types both ways, the query too but for its page size; path
 * parameters may be narrower in the client (an enum over a runtime list, like the docs assets, is
 * `string` to the compiler).
 */
type Checks = {
  [K in OperationId & ServerId]: [
    Same<
      [Wire<Operations[K]['query']>, Operations[K]['body'], Operations[K]['result']],
      [Wire<SQuery<K>>, SBody<K>, SResult<K>]
    >,
    [Operations[K]['params']] extends [SParams<K>] ? true : false,
  ] extends [true, true]
    ? true
    : false;
};

// Compile-time checks: a mismatch is a type error on these lines.
const sameOperations: Same<OperationId, ServerId> = true;
const sameProblemCodes: Same<ProblemCode, ServerProblemCode> = true;
const noMismatch: [Failing<Checks>] extends [never] ? 'ok' : Failing<Checks> = 'ok';

const AUTH = { bearerAuth: 'user', adminToken: 'admin', serviceAuth: 'service' } as const;

describe('client/src/api.gen.ts', () => {
  it('is what the generator makes of the document now (npm run gen:client)', async () => {
    expect(readFileSync(CLIENT_API_FILE, 'utf8')).toBe(await renderClientApi());
  });

  it('has the route table of the route definitions', () => {
    expect([sameOperations, sameProblemCodes, noMismatch]).toEqual([true, true, 'ok']);
    for (const [id, r] of Object.entries(routes)) {
      expect(r.operationId, id).toBe(id);
      const scheme = Object.keys(r.security[0] ?? {})[0] as keyof typeof AUTH | undefined;
      const parameters: unknown[] = 'parameters' in r ? r.parameters : [];
      expect(ROUTES[id as OperationId], id).toEqual({
        method: r.method.toUpperCase(),
        path: r.path.replace(/\{([^}]+)\}/g, ':$1'),
        auth: scheme ? AUTH[scheme] : 'none',
        idempotent: parameters.some(
          (p) => (p as { $ref?: string }).$ref === '#/components/parameters/IdempotencyKey',
        ),
      });
    }
    expect(Object.keys(ROUTES).sort()).toEqual(Object.keys(routes).sort());
  });
});
