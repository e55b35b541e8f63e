/**
 * One in-process HTTP request against the real Hono app (`app.request()`, no port), with the
 * reply's body parsed as JSON, for the harnesses' `call` helpers. Every reply is also checked
 * against the OpenAPI document (support/contract.ts): a status, header or body the document
 * does not describe for a documented operation fails the test that received it, so every HTTP
 * test is a contract test. (A route missing from the document fails api/openapi.test.ts.)
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../../../src/http/env.js';
import { serverDocument } from '../../../tools/client-api/generate.js';
import { Contract } from './contract.js';

let contract: Contract | undefined;

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
  const reply = {
    status: res.status,
    headers: res.headers,
    json: text ? JSON.parse(text) : undefined,
  };
  contract ??= new Contract(serverDocument(), true); // the widest app a test builds
  const mismatches = contract.check(method, path, reply);
  if (mismatches.length > 0) {
    throw new Error(`the reply does not match the OpenAPI document: ${mismatches.join('; ')}`);
  }
  return reply;
}
