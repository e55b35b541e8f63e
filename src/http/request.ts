/** Reading and validating JSON bodies against zod schemas (api/route.ts: why here). */
import type { Context } from 'hono';
import type { z } from 'zod';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { parseInput } from './schemas.js';

/**
 * Parses the JSON body. An empty body counts as `{}` only when `emptyAsObject` (e.g. a post
 * with no caption); malformed JSON or a non-object is a 400 before anything is written.
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  options: { emptyAsObject?: boolean } = {},
): Promise<z.output<S>> {
  const text = await bodyTextOf(c);
  let value: unknown;
  if (text.trim() === '') {
    if (!options.emptyAsObject) throw new DomainError('invalid_request', 'a JSON body is required');
    value = {};
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new DomainError('invalid_request', 'the body is not valid JSON');
    }
  }
  return parseInput(schema, value, 'body');
}

/** The body as text: what the body limit read off the Node request, else the fetch Request's. */
export const bodyTextOf = (c: Context): Promise<string> => {
  const read = (c as Context<AppEnv>).get('bodyText');
  return read !== undefined ? Promise.resolve(read) : c.req.text();
};
