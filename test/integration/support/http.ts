/**
 * One in-process HTTP request against the real Hono app (`app.request()`, no port), with the
 * reply's body parsed as JSON, for the harnesses' `call` helpers.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../../../src/http/env.js';

export interface JsonReply {
  readonly status: number;
  readonly headers: Headers;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Sends `body` verbatim (as application/json) when given; an empty reply body parses as undefined. */
export async function requestJson(
  app: Hono<AppEnv>,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<JsonReply> {
  const sent = body !== undefined ? { ...headers, 'content-type': 'application/json' } : headers;
  const res = await app.request(path, {
    method,
    headers: sent,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}
