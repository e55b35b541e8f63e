/**
 * Request shapes (zod), parsed at the boundary. Bodies are strict: an unknown field is a 400, so
 * a typo never silently does nothing. IDs travel as decimal strings (a JSON number cannot hold
 * every 64-bit ID exactly) and become `bigint` here, validated once.
 */
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { DomainError } from '../domain/errors.js';
import { MAX_ID } from '../domain/ids.js';
import { IdString } from '../domain/post-schema.js';
import { zodIssues } from './problem.js';
import type { MinVersion } from '../domain/grid-version.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../service/read/read-page.js';

// The ID and post schemas are the domain's (domain/post-schema.ts): the importer applies them too.
export { CreatePostBody, IdString } from '../domain/post-schema.js';

export const MoveBody = z.strictObject({
  post_id: IdString,
  /** The post that should come right before `post_id`; null = the top (after the pins). */
  after: IdString.nullable(),
});
export type MoveBody = z.infer<typeof MoveBody>;

/**
 * A read-your-writes floor: a bare version (`42`, compares version numbers only) or generation and
 * version as in an ETag (`1.42`, or quoted `"1.42"`; generation compared first). Versions are
 * unsigned up to 2^63-1 like every stored 64-bit value; generations start at 1.
 */
export const MinVersionString = z
  .string()
  .regex(
    /^("?)(?:([1-9][0-9]{0,18})\.)?(0|[1-9][0-9]{0,18})\1$/,
    'must be a version ("42") or generation.version ("1.42")',
  )
  .transform((s, ctx): MinVersion => {
    const parts = s.replaceAll('"', '').split('.');
    const version = BigInt(parts[parts.length - 1]!);
    const generation = parts.length === 2 ? BigInt(parts[0]!) : undefined;
    if (version > MAX_ID || (generation !== undefined && generation > MAX_ID)) {
      ctx.addIssue({ code: 'custom', message: 'out of range (at most 2^63-1)' });
      return z.NEVER;
    }
    return generation === undefined ? { version } : { generation, version };
  });

/**
 * A page size in a query string: plain decimal digits only (no `0x10`, ` 5`, `1e1`, `+5`), in
 * 1..max, `dflt` when absent.
 */
export const pageLimit = (max: number, dflt: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,5}$/, 'a positive whole number in plain decimal')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .transform((v) => v ?? dflt)
    // The OpenAPI document (api/document.ts) shows the bounded integer it is on the wire.
    .meta({ type: 'integer', minimum: 1, maximum: max, default: dflt });

export const GridQuery = z.strictObject({
  limit: pageLimit(MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT),
  cursor: z.string().min(1).max(512).optional(),
  min_version: MinVersionString.optional(),
});
export type GridQuery = z.infer<typeof GridQuery>;

/** safeParse with our own error: DomainError('invalid_request') listing the issues. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new DomainError('invalid_request', `invalid ${what}`, {
      errors: zodIssues(parsed.error),
    });
  }
  return parsed.data;
}

/**
 * The check of a route's path parameters and query (api/route.ts `serve`), for every route: each
 * parsed with its schema and handed to the handler as `c.req.valid('param' | 'query')`; a failure
 * is parseInput's 400. Not zod-openapi's validator: that one reads the Content-Type of every
 * request, which makes the Node adapter build a GET's whole WHATWG Headers for nothing.
 */
export function inputCheck(input: {
  params?: z.ZodType;
  query?: z.ZodType;
}): MiddlewareHandler | undefined {
  const { params, query } = input;
  if (!params && !query) return undefined;
  return async function checkInput(c, next) {
    if (query) {
      c.req.addValidatedData(
        'query',
        parseInput(query, queryOf(c.req.queries()), 'query') as object,
      );
    }
    if (params) {
      c.req.addValidatedData(
        'param',
        parseInput(params, c.req.param(), 'path parameters') as object,
      );
    }
    await next();
  };
}

/** A query as a validator sees it: a repeated name is an array (so a 400). */
const queryOf = (all: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
