/**
 * The client's types over the generated API description (api.gen.ts, made from the server's
 * OpenAPI document): request inputs as the routes accept them (IDs as decimal strings), results as
 * they are sent. Plain types only: the package loads and imports nothing of the server.
 */
import type { OperationId, Operations, ProblemCode, ROUTES } from './api.gen.js';

export type { OperationId, Operations, ProblemCode };
export type * from './api.gen.js';

type Op<K extends OperationId> = Operations[K];

/** Query values travel as strings; numbers are accepted where the schema takes digits. */
type Loose<T> = { [k in keyof T]: T[k] extends string | undefined ? T[k] | number : T[k] };

export type ParamsOf<K extends OperationId> = Op<K>['params'];
export type BodyOf<K extends OperationId> = Op<K>['body'];
export type QueryOf<K extends OperationId> = [Op<K>['query']] extends [never]
  ? never
  : Loose<Op<K>['query']>;
export type ResultOf<K extends OperationId> = Op<K>['result'];

/** Who may call a route: a user JWT, the ADMIN_TOKEN, a service token, or anyone. */
export type Auth = (typeof ROUTES)[OperationId]['auth'];

export interface CallInput<K extends OperationId> {
  readonly params?: ParamsOf<K>;
  readonly query?: QueryOf<K>;
  readonly body?: BodyOf<K>;
  /** Writes: the key to send; by default a fresh random one per call; false = none. */
  readonly idempotencyKey?: string | false;
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
  readonly signal?: AbortSignal;
}

export type Reply<K extends OperationId> =
  | {
      readonly status: Op<K>['status'];
      readonly data: ResultOf<K>;
      readonly etag: string | null;
      readonly replayed: boolean;
    }
  | (Op<K>['conditionalGet'] extends true
      ? {
          readonly status: 304;
          readonly data: undefined;
          readonly etag: string | null;
          readonly replayed: false;
        }
      : never);

export type GridPage = ResultOf<'readGrid'>;
export type OrderResource = ResultOf<'getOrder'>;
