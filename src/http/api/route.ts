/**
 * What every route definition shares: refs to the document's components (api/document-parts.ts),
 * the JSON body and answer shorthands, `route`, which adds the problems a route of its kind
 * can answer (400 for input, 401/403 for auth, 413 for a body, 409/422 for Idempotency-Key, 503s
 * on /v1) to its own, one response per status, and `serve`, which registers a route's handler
 * from its definition.
 */
import {
  createRoute,
  type OpenAPIHono,
  type RouteConfig,
  type RouteHandler,
  type z,
} from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import { PROBLEM_BASE, problemTitle, statusOf } from '../problem.js';
import { inputCheck } from '../schemas.js';
import { components } from './document-parts.js';
import type { ErrorCode } from '../../domain/errors.js';
import { ProblemJson } from './responses.js';

type Json = Record<string, unknown>;

/** Every problem code the app answers with (problem.ts): the domain's plus the HTTP layer's. */
export type ProblemCode = ErrorCode | 'not_found' | 'payload_too_large' | 'request_timeout';
const href = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const user = [{ bearerAuth: [] }];
export const admin = [{ adminToken: [] }];
export const service = [{ serviceAuth: [] }];
export const idempotencyKey = href('parameters', 'IdempotencyKey');
export const ifMatch = href('parameters', 'IfMatch');
export const ifNoneMatch = href('parameters', 'IfNoneMatch');
export const etag = { ETag: href('headers', 'ETag') };
export const pageEtag = { ETag: href('headers', 'PageETag') };
export const notModified = (headers: Headers) => ({
  304: { description: 'not modified', headers },
});

/** A response's headers: refs to the document's, or one described in place. */
type Headers = Record<string, { $ref: string } | { description: string; schema: object }>;

export const json = <S extends z.ZodType>(schema: S, example: unknown, required = true) => ({
  required,
  content: { 'application/json': { schema, example } },
});
export const ok = <S extends z.ZodType>(
  description: string,
  schema: S,
  example: unknown,
  headers?: Headers,
) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema, example } },
});
export const file = (description: string, type: string) => ({
  description,
  content: { [type]: { schema: {} } },
});

const HTTP_STATUS: Partial<Record<ProblemCode, number>> = {
  not_found: 404,
  payload_too_large: 413,
  request_timeout: 408,
};
const statusOfCode = (code: ProblemCode): number =>
  HTTP_STATUS[code] ?? statusOf(code as Parameters<typeof statusOf>[0]);

type Spec = RouteConfig & { problems: readonly ProblemCode[]; invalidRequest?: false };

/** The route's codes plus those every route of its kind can answer, without repeats. */
export function problemsOf(r: Spec): ProblemCode[] {
  const codes = new Set<ProblemCode>();
  const idempotent = r.parameters?.includes(idempotencyKey) ?? false;
  const input = r.request?.params || r.request?.query || r.request?.body || idempotent;
  if (input && r.invalidRequest !== false) codes.add('invalid_request');
  if (r.security?.length) codes.add('unauthorized');
  if (r.security === admin || r.security === service) codes.add('forbidden');
  for (const c of r.problems) codes.add(c);
  if (idempotent) codes.add('idempotency_in_flight').add('idempotency_mismatch');
  // A grid write can reach a region that is not its grid's home (docs/regions.md, 421).
  if (idempotent) codes.add('wrong_region');
  if (r.request?.body) codes.add('payload_too_large');
  // Every request that may carry a body has it read under BODY_TIMEOUT_MS (body-limit.ts).
  if (r.method !== 'get') codes.add('request_timeout');
  // The request deadline (deadline.ts) and Cassandra itself can cut any /v1 request short.
  if (r.path.startsWith('/v1/')) {
    codes.add('unavailable');
    if (r.method !== 'get') codes.add('write_outcome_unknown');
  }
  return [...codes];
}

/**
 * The definition of operation `operationId` with its problem responses and, on an idempotent
 * write, `Idempotent-Replayed`; typed as given (test/unit/client/api-gen.test.ts reads the request
 * and answer schemas off it).
 */
export function route<Id extends string, R extends Spec>(
  operationId: Id,
  r: R,
): Omit<R, 'problems' | 'invalidRequest'> & { operationId: Id } {
  const { problems: _p, invalidRequest: _i, ...config } = r;
  const responses: Record<string, Json> = { ...(config.responses as Record<string, Json>) };
  if (r.parameters?.includes(idempotencyKey)) {
    for (const [status, res] of Object.entries(responses))
      if (status.startsWith('2'))
        responses[status] = {
          ...res,
          headers: {
            ...(res['headers'] as Json),
            'Idempotent-Replayed': href('headers', 'IdempotentReplayed'),
          },
        };
  }
  Object.assign(responses, problemResponses(problemsOf(r)));
  responses['default'] = {
    description: 'any other problem (RFC 9457)',
    content: { 'application/problem+json': { schema: ProblemJson } },
  };
  return createRoute({ ...config, operationId, responses } as RouteConfig) as never;
}

/**
 * Registers `handler` as route `r` of `app`: documented as defined, its path parameters and query
 * checked by schemas.ts `inputCheck` (a failure is its 400, through problem.ts). Not its body:
 * the handler reads that with readBody (request.ts) off the copy body-limit.ts buffered, where a
 * validator's `c.req.json()` would find nothing behind the Node adapter. `validate: false`: the
 * handler answers a parameter itself (an unknown flag or asset is a 404, not a 400).
 */
export function serve<R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  r: R,
  handler: (c: Parameters<RouteHandler<R, AppEnv>>[0]) => Response | Promise<Response>,
  { validate = true } = {},
): void {
  app.openAPIRegistry.registerPath(r);
  const check = validate ? inputCheck(r.request ?? {}) : undefined;
  // No `request` for zod-openapi: it would mount its own validators.
  const own = { ...r, request: {}, hide: true, ...(check ? { middleware: check } : {}) };
  app.openapi(own, handler as never);
}

/** One response per status, its `code` and `type` limited to the codes that status carries. */
function problemResponses(codes: readonly ProblemCode[]): Record<string, Json> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of codes)
    byStatus.set(statusOfCode(c), [...(byStatus.get(statusOfCode(c)) ?? []), c]);
  const out: Record<string, Json> = {};
  for (const [status, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = {};
    if (status === 503 || status === 429) headers['Retry-After'] = href('headers', 'RetryAfter');
    // Of the conflicts only a key still being served says when to retry (problem.ts).
    if (status === 409 && cs.includes('idempotency_in_flight')) {
      headers['Retry-After'] = {
        description: 'sent only with `idempotency_in_flight`: seconds to wait before retrying',
        required: false,
        schema: components.headers.RetryAfter.schema,
      };
    }
    if (status === 401) headers['WWW-Authenticate'] = href('headers', 'WWWAuthenticate');
    out[String(status)] = {
      description: cs.map((c) => `\`${c}\`: ${problemTitle(c)}`).join('; '),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [href('schemas', 'Problem')],
            properties: {
              type: { enum: cs.map((c) => `${PROBLEM_BASE}${c}`) },
              code: { enum: cs },
              status: { const: status },
            },
          },
          example: {
            type: `${PROBLEM_BASE}${cs[0]}`,
            title: problemTitle(cs[0]!),
            status,
            code: cs[0],
          },
        },
      },
    };
  }
  return out;
}
