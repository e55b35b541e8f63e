/**
 * What the API registry says about one route: enough to build its OpenAPI operation
 * (document.ts) and to type the client (client/, generated), with the request schemas being the very
 * zod schemas the route parses with. Paths are in Hono's syntax (`:param`), as the app
 * registers them, so a test can compare the two exactly.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: a user JWT (/v1/me/*), the ADMIN_TOKEN (/v1/admin/*), a service JWT (a
 * platform's own services, http/service-auth.ts), or anyone.
 */
export type Auth = 'user' | 'admin' | 'service' | 'none';

/** Every problem code the app answers with (problem.ts): the domain's plus the HTTP layer's. */
export type ProblemCode = ErrorCode | 'not_found' | 'payload_too_large' | 'request_timeout';

export type Tag = 'posts' | 'grid' | 'order' | 'profile' | 'admin' | 'service' | 'operations';

export interface OkSpec {
  readonly status: 200 | 201;
  readonly description: string;
  /** The body's shape; none for a non-JSON answer (then `contentType`). */
  readonly schema?: z.ZodType;
  readonly contentType?: string;
  readonly example?: unknown;
  /**
   * The answer carries an ETag: `true` = the order's `"<generation>.<version>"`; `'body'` = a
   * hash of the rendered body (grid pages: bodies change with anything they show).
   */
  readonly etag?: true | 'body';
  /** A second success status with the same body (a PUT: 201 created, 200 already there). */
  readonly alsoStatus?: { readonly status: 200; readonly description: string };
}

export interface OperationSpec {
  readonly method: Method;
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly description?: string;
  readonly auth: Auth;
  /** Path parameters by name, in path order. */
  readonly params?: Readonly<Record<string, z.ZodType>>;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** An empty body counts as `{}` (http/request.ts `emptyAsObject`). */
  readonly bodyOptional?: boolean;
  readonly requestExample?: unknown;
  /** Accepts `Idempotency-Key` (every grid write, docs/idempotency.md). */
  readonly idempotent?: boolean;
  /** Requires `If-Match` with the order's ETag (428 without, 412 when stale). */
  readonly ifMatch?: boolean;
  /** Honours `If-None-Match` with a 304. */
  readonly conditionalGet?: boolean;
  /** false: the route answers no 400 (a bad path parameter is a 404). */
  readonly invalidRequest?: false;
  readonly ok: OkSpec;
  /**
   * The route's own problem codes. The document adds those every route of its kind can answer
   * (400 for input, 401/403 for auth, 413 for a body, 409/422 for Idempotency-Key, 503s on /v1).
   */
  readonly problems: readonly ProblemCode[];
}

/** `/v1/profiles/:profile_id/grid` → `/v1/profiles/{profile_id}/grid`. */
export const openApiPath = (honoPath: string): string =>
  honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
