/**
 * The ONE place where errors become HTTP responses: `application/problem+json` (RFC 9457).
 *
 * Domain errors carry stable codes (src/domain/errors.ts); each maps to a status and a stable
 * `type` URI `https://regrid.dev/problems/<code>`. Details of the error become extension members
 * (for example `grid_version` on a 409). Request-shape errors (zod issues, unparsable JSON) are
 * 400 `invalid_request`. Anything unexpected is a 500 whose detail does not leak internals.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError } from 'zod';
import { DomainError, type ErrorCode } from '../domain/errors.js';

export const PROBLEM_BASE = 'https://regrid.dev/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  bad_cursor: 400,
  unauthorized: 401,
  forbidden: 403,
  post_not_found: 404,
  post_not_on_grid: 404,
  flag_not_found: 404,
  anchor_not_on_grid: 409,
  post_pinned: 409,
  conflict: 409,
  idempotency_in_flight: 409,
  precondition_failed: 412,
  idempotency_mismatch: 422,
  precondition_required: 428,
  rate_limited: 429,
  contention: 503,
  feature_disabled: 503,
  key_space_exhausted: 409,
  history_gone: 410,
  post_removed: 410,
  wrong_region: 421,
  unavailable: 503,
  write_outcome_unknown: 503,
};

const TITLES: Record<string, string> = {
  invalid_request: 'The request is malformed',
  bad_cursor: 'The cursor is not valid',
  unauthorized: 'Authentication required',
  forbidden: 'Not allowed',
  post_not_found: 'No such post',
  post_not_on_grid: 'The post is not on this grid',
  flag_not_found: 'No such flag',
  anchor_not_on_grid: 'The anchor post is not on the grid any more',
  post_pinned: 'The post is pinned',
  conflict: 'Conflict with the current state',
  idempotency_in_flight: 'A request with this Idempotency-Key is still in progress',
  precondition_failed: 'The grid changed since the version in If-Match',
  idempotency_mismatch: 'This Idempotency-Key was used for a different request',
  precondition_required: 'If-Match is required',
  rate_limited: 'Too many requests',
  contention: 'The grid is busy; retry shortly',
  feature_disabled: 'This feature is switched off for now',
  key_space_exhausted: 'No room left for sort keys',
  history_gone: 'The changes since that version are no longer kept; read the grid again',
  post_removed: 'The post was deleted or taken down; its ID cannot be used again',
  wrong_region: 'This grid is written in another region; nothing was applied',
  unavailable: 'A backing store is unavailable',
  write_outcome_unknown: 'The write may or may not have been applied',
  not_found: 'Not found',
  payload_too_large: 'The request body is too large',
  request_timeout: 'The request body did not arrive in time',
  internal: 'Internal error',
};

/** Said with every write_outcome_unknown: what makes the retry safe (docs/idempotency.md). */
const OUTCOME_UNKNOWN_ADVICE =
  'Retrying with the same Idempotency-Key is safe: the write is applied at most once. ' +
  'Without a key, read the resource before retrying.';

/** 503s a client should retry after Retry-After (the default being one second). */
const RETRY_AFTER_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'contention',
  'feature_disabled',
  'unavailable',
  'write_outcome_unknown',
]);

export const statusOf = (code: ErrorCode): ContentfulStatusCode => STATUS[code];

/** The fixed `title` of a code (the OpenAPI document lists them). */
export const problemTitle = (code: string): string => TITLES[code] ?? code;

export interface ProblemInit {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly detail?: string;
  readonly extensions?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

/** Builds the problem response (also used directly by middleware such as the body limit). */
export function problemResponse(init: ProblemInit): Response {
  const body = {
    type: `${PROBLEM_BASE}${init.code}`,
    title: problemTitle(init.code),
    status: init.status,
    ...(init.detail ? { detail: init.detail } : {}),
    code: init.code,
    ...jsonSafe(init.extensions ?? {}),
  };
  return new Response(JSON.stringify(body), {
    status: init.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...init.headers },
  });
}

/** Maps any thrown value to its problem description. */
export function problemOf(err: unknown): ProblemInit {
  if (err instanceof DomainError) {
    const headers: Record<string, string> = {};
    const retry = err.details['retry_after_s'];
    if ((RETRY_AFTER_DEFAULT.has(err.code) || err.code === 'rate_limited') && retry !== undefined) {
      headers['retry-after'] = String(retry);
    } else if (RETRY_AFTER_DEFAULT.has(err.code)) {
      headers['retry-after'] = '1';
    }
    // The same key still being served: worth a retry shortly (an unknown outcome is not).
    if (err.code === 'idempotency_in_flight' && err.details['outcome'] !== 'unknown') {
      headers['retry-after'] = '1';
    }
    if (err.code === 'unauthorized') headers['www-authenticate'] = 'Bearer';
    const { cause: _cause, ...extensions } = err.details; // driver messages stay in the logs
    const detail =
      err.code === 'write_outcome_unknown'
        ? `${err.message}. ${OUTCOME_UNKNOWN_ADVICE}`
        : err.message;
    return { status: STATUS[err.code], code: err.code, detail, extensions, headers };
  }
  if (err instanceof ZodError) {
    return {
      status: 400,
      code: 'invalid_request',
      detail: 'the request does not match the expected shape',
      extensions: { errors: zodIssues(err) },
    };
  }
  if (err instanceof SyntaxError) {
    return { status: 400, code: 'invalid_request', detail: 'the body is not valid JSON' };
  }
  if (err instanceof HTTPException) {
    const code =
      err.status === 413
        ? 'payload_too_large'
        : err.status === 404
          ? 'not_found'
          : 'invalid_request';
    return { status: err.status as ContentfulStatusCode, code, detail: err.message };
  }
  return { status: 500, code: 'internal', detail: 'an unexpected error occurred' };
}

export const zodIssues = (err: ZodError) =>
  err.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));

/**
 * Hono `onError` handler: the single mapping point. Logs a 500 with the real error, and every
 * 503 as one line with its cause (class and message), since those are what an operator sees
 * when Cassandra misbehaves. `answered(c)`: the deadline already answered (it logs the rest).
 */
export function onError(
  log: (msg: string, err: unknown) => void = () => {},
  answered: (c: Context) => boolean = () => false,
) {
  return function problemOnError(err: Error, c: Context): Response {
    const problem = problemOf(err);
    if (problem.status === 503) {
      if (!answered(c)) log(`503 ${problem.code} ${c.req.method} ${c.req.path}`, causeLine(err));
    } else if (problem.status >= 500) {
      log('unhandled error', err);
    }
    return problemResponse(problem);
  };
}

/** "Class: message" of the error behind `err` (a DomainError's cause), on one line. */
export function causeLine(err: unknown): string {
  const root = err instanceof DomainError && err.cause !== undefined ? err.cause : err;
  return describe(root).replace(/\s+/g, ' ');
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const name = e.constructor.name || e.name;
  // The driver's NoHostAvailableError message embeds each host's error with its stack trace:
  // name each host's error instead.
  const inner = (e as { innerErrors?: unknown }).innerErrors;
  if (inner && typeof inner === 'object' && Object.keys(inner).length > 0) {
    const hosts = Object.entries(inner).map(([host, ie]) => `${host}: ${describe(ie)}`);
    return `${name}: ${hosts.join('; ')}`;
  }
  return `${name}: ${e.message}`;
}

/** bigint values (IDs, versions) become decimal strings, as everywhere in the API. */
function jsonSafe(obj: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(obj, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  );
}
