/**
 * The client's types, derived from the API registry (src/http/api) with type-only imports:
 * request inputs are the zod schemas' *input* types (IDs as decimal strings), results their
 * outputs. Nothing of the server is loaded at run time.
 */
import type { z } from 'zod';
import type { OperationId, Operations } from '../../src/http/api/operations.js';
import type { ProblemCode } from '../../src/http/api/operation.js';

export type { OperationId, ProblemCode };

type Op<K extends OperationId> = Operations[K];

/** `/v1/me/posts/:post_id/collaborators/:profile_id` → `{post_id: string; profile_id: string}`. */
export type PathParams<P extends string> = P extends `${string}:${infer N}/${infer Rest}`
  ? { [k in N]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer N}`
    ? { [k in N]: string }
    : Record<never, never>;

/** Query values travel as strings; numbers are accepted where the schema takes digits. */
type Loose<T> = { [k in keyof T]: T[k] extends string | undefined ? T[k] | number : T[k] };

export type BodyOf<K extends OperationId> =
  Op<K> extends { body: infer S extends z.ZodType } ? z.input<S> : never;
export type QueryOf<K extends OperationId> =
  Op<K> extends { query: infer S extends z.ZodType } ? Loose<z.input<S>> : never;
export type ResultOf<K extends OperationId> = Op<K>['ok'] extends {
  schema: infer S extends z.ZodType;
}
  ? z.output<S>
  : string;

type Has<K extends OperationId, F extends string> = Op<K> extends { [f in F]: true } ? true : false;

export interface CallInput<K extends OperationId> {
  readonly params?: PathParams<Op<K>['path']>;
  readonly query?: QueryOf<K>;
  readonly body?: BodyOf<K>;
  /** Writes: the key to send; by default a fresh UUID per call; false = none. */
  readonly idempotencyKey?: string | false;
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
  readonly signal?: AbortSignal;
}

export type Reply<K extends OperationId> =
  | {
      readonly status: Op<K>['ok']['status'];
      readonly data: ResultOf<K>;
      readonly etag: string | null;
      readonly replayed: boolean;
    }
  | (Has<K, 'conditionalGet'> extends true
      ? {
          readonly status: 304;
          readonly data: undefined;
          readonly etag: string | null;
          readonly replayed: false;
        }
      : never);

/** What the client needs at run time of each route; checked against the registry by the compiler. */
export type RouteTable = {
  readonly [K in OperationId]: {
    readonly method: Uppercase<Op<K>['method']>;
    readonly path: Op<K>['path'];
    readonly auth: Op<K>['auth'];
    readonly idempotent: Has<K, 'idempotent'>;
  };
};

export type GridItem = ResultOf<'readGrid'>['items'][number];
export type Post = ResultOf<'getPost'>;
export type GridPage = ResultOf<'readGrid'>;
