/**
 * Builds the OpenAPI 3.1 document from the registry (operations.ts). Every schema in it is
 * converted from zod (`z.toJSONSchema`, the *input* side of request schemas, so IDs show as the
 * decimal strings clients send), so the document cannot say other than what the routes parse.
 * The problems each route can answer are its own codes plus those of its kind (problemsOf).
 */
import { z } from 'zod';
import { version } from '../../obs/build-info.js';
import { PROBLEM_BASE, problemTitle, statusOf } from '../problem.js';
import { QUERY_INTEGERS } from '../schemas.js';
import { openApiPath, type OperationSpec, type ProblemCode } from './operation.js';
import { operations } from './operations.js';
import { components, parameterRef, headerRef } from './document-parts.js';
import { GridItemJson, Instant, PostJson, ProblemJson, VersionJson } from './responses.js';

type Json = Record<string, unknown>;

const HTTP_STATUS: Partial<Record<ProblemCode, number>> = {
  not_found: 404,
  payload_too_large: 413,
  request_timeout: 408,
};
type HttpOnly = 'not_found' | 'payload_too_large' | 'request_timeout';
const statusOfCode = (code: ProblemCode): number =>
  HTTP_STATUS[code] ?? statusOf(code as Exclude<ProblemCode, HttpOnly>);

/** The route's codes plus those every route of its kind can answer, without repeats. */
export function problemsOf(op: OperationSpec): ProblemCode[] {
  const codes = new Set<ProblemCode>();
  const hasInput = op.params || op.query || op.body || op.idempotent;
  if (hasInput && op.invalidRequest !== false) codes.add('invalid_request');
  if (op.auth !== 'none') codes.add('unauthorized');
  if (op.auth === 'admin' || op.auth === 'service') codes.add('forbidden');
  for (const c of op.problems) codes.add(c);
  if (op.idempotent) codes.add('idempotency_in_flight').add('idempotency_mismatch');
  // A grid write can reach a region that is not its grid's home (docs/regions.md, 421).
  if (op.idempotent) codes.add('wrong_region');
  if (op.body) codes.add('payload_too_large');
  // Every request that may carry a body has it read under BODY_TIMEOUT_MS (body-limit.ts).
  if (op.method !== 'get') codes.add('request_timeout');
  // The request deadline (deadline.ts) and Cassandra itself can cut any /v1 request short.
  if (op.path.startsWith('/v1/')) {
    codes.add('unavailable');
    if (op.method !== 'get') codes.add('write_outcome_unknown');
  }
  return [...codes];
}

/** `devTokens`: the server mounts POST /dev/token (development only), so the document lists it. */
export function buildDocument({ devTokens = false }: { readonly devTokens?: boolean } = {}): Json {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  const name = (schema: z.ZodType, id: string): string => {
    if (!names.has(schema)) {
      names.set(schema, id);
      registry.add(schema, { id });
    }
    return names.get(schema)!;
  };
  for (const [s, id] of [
    [PostJson, 'Post'],
    [GridItemJson, 'GridItem'],
    [VersionJson, 'GridVersion'],
    [ProblemJson, 'Problem'],
    [Instant, 'Instant'], // its RFC 3339 pattern is long: said once
  ] as const)
    name(s, id);

  const paths: Record<string, Json> = {};
  for (const [id, op] of Object.entries(operations) as [string, OperationSpec][]) {
    if (id === 'devToken' && !devTokens) continue;
    const pascal = id[0]!.toUpperCase() + id.slice(1);
    const bodyRef = op.body && ref(name(op.body, `${pascal}Request`));
    const okRef = op.ok.schema && ref(name(op.ok.schema, `${pascal}Response`));
    const path = (paths[openApiPath(op.path)] ??= {});
    path[op.method] = operation(id, op, bodyRef, okRef);
    if (op.method === 'get') path['head'] = headOf(path['get'] as Json);
  }

  const converted = z.toJSONSchema(registry, {
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  }).schemas;
  const schemas: Record<string, Json> = {};
  for (const [id, s] of Object.entries(converted)) {
    const { $schema: _s, $id: _i, ...rest } = s as Json;
    schemas[id] = rest;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'regrid',
      version,
      description:
        'User-defined order for profile grids. IDs and versions are decimal strings; errors are application/problem+json with a stable `type`; every write accepts `Idempotency-Key`.',
    },
    servers: [{ url: '/' }],
    tags: ['posts', 'grid', 'order', 'profile', 'admin', 'service', 'operations'].map((t) => ({
      name: t,
    })),
    paths,
    components: { ...components, schemas },
  };
}

const SECURITY_SCHEME = {
  user: 'bearerAuth',
  admin: 'adminToken',
  service: 'serviceAuth',
} as const;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function operation(id: string, op: OperationSpec, bodyRef?: Json, okRef?: Json): Json {
  const parameters: Json[] = [];
  for (const [n, schema] of Object.entries(op.params ?? {})) {
    parameters.push({ name: n, in: 'path', required: true, schema: inline(schema) });
  }
  if (op.query) {
    const q = inline(op.query, true) as { properties?: Record<string, Json>; required?: string[] };
    for (const [n, schema] of Object.entries(q.properties ?? {})) {
      parameters.push({ name: n, in: 'query', required: q.required?.includes(n) ?? false, schema });
    }
  }
  if (op.idempotent) parameters.push(parameterRef('IdempotencyKey'));
  if (op.ifMatch) parameters.push(parameterRef('IfMatch'));
  if (op.conditionalGet) parameters.push(parameterRef('IfNoneMatch'));

  const okHeaders: Json = {};
  const etagRef = headerRef(op.ok.etag === 'body' ? 'PageETag' : 'ETag');
  if (op.ok.etag) okHeaders['ETag'] = etagRef;
  if (op.idempotent) okHeaders['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  const okContent = okRef
    ? { 'application/json': { schema: okRef, example: op.ok.example } }
    : { [op.ok.contentType ?? 'application/octet-stream']: { schema: {} } };
  const responses: Record<string, Json> = {
    [op.ok.status]: {
      description: op.ok.description,
      ...(Object.keys(okHeaders).length ? { headers: okHeaders } : {}),
      content: okContent,
    },
  };
  if (op.ok.alsoStatus) {
    const { status, description } = op.ok.alsoStatus;
    responses[status] = { ...responses[op.ok.status], description };
  }
  if (op.conditionalGet) {
    responses['304'] = { description: 'not modified', headers: { ETag: etagRef } };
  }
  if (id === 'readyz') {
    responses['503'] = {
      description:
        'draining, Cassandra does not answer, or too few live replicas: take the instance out of rotation',
      headers: { 'Retry-After': headerRef('RetryAfter') },
      content: { 'application/json': { schema: okRef } },
    };
  }
  Object.assign(responses, problemResponses(problemsOf(op)));
  responses['default'] = {
    description: 'any other problem (RFC 9457)',
    content: { 'application/problem+json': { schema: ref('Problem') } },
  };

  return {
    operationId: id,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: op.auth === 'none' ? [] : [{ [SECURITY_SCHEME[op.auth]]: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(bodyRef
      ? {
          requestBody: {
            required: !op.bodyOptional,
            content: { 'application/json': { schema: bodyRef, example: op.requestExample } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * HEAD of a GET route: Hono answers it with that route, without the body, so the same
 * parameters, statuses and headers, and no content.
 */
function headOf(get: Json): Json {
  const responses: Record<string, Json> = {};
  for (const [status, res] of Object.entries(get['responses'] as Record<string, Json>)) {
    const { content: _content, ...rest } = res;
    responses[status] = rest;
  }
  return {
    ...get,
    operationId: `${String(get['operationId'])}Head`,
    summary: `${String(get['summary'])} (HEAD: the headers only)`,
    responses,
  };
}

/** One response per status, its `code` and `type` limited to the codes that status carries. */
function problemResponses(codes: readonly ProblemCode[]): Record<string, Json> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of codes)
    byStatus.set(statusOfCode(c), [...(byStatus.get(statusOfCode(c)) ?? []), c]);
  const out: Record<string, Json> = {};
  for (const [status, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = {};
    if (status === 503 || status === 429) headers['Retry-After'] = headerRef('RetryAfter');
    // Of the conflicts only a key still being served says when to retry (problem.ts).
    if (status === 409 && cs.includes('idempotency_in_flight')) {
      headers['Retry-After'] = {
        description: 'sent only with `idempotency_in_flight`: seconds to wait before retrying',
        required: false,
        schema: components.headers.RetryAfter.schema,
      };
    }
    if (status === 401) headers['WWW-Authenticate'] = headerRef('WWWAuthenticate');
    out[String(status)] = {
      description: cs.map((c) => `\`${c}\`: ${problemTitle(c)}`).join('; '),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [ref('Problem')],
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

/**
 * A schema converted on its own (parameters), without the `$schema` line; `query`: a parameter
 * parsed from digits (schemas.ts QUERY_INTEGERS) is the bounded integer it is on the wire.
 */
function inline(schema: z.ZodType, query = false): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      const integer = query ? QUERY_INTEGERS.get(zodSchema) : undefined;
      if (!integer) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, integer);
    },
  }) as Json;
  return rest;
}
