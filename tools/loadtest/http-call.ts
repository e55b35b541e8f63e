/**
 * The load tester's HTTP client. The load generator shares the machine's cores with the server
 * and Cassandra, so what it spends per request is taken from what it measures: plain-http
 * targets (the loopback server of a load test) go through the lean keep-alive client
 * (http-wire.ts), anything else (https) through undici pools. `npx tsx bench/http-client.ts`
 * (16 concurrent senders, small JSON POSTs, a bare node:http server): 19–27 µs of client CPU
 * per request through the lean client, 42–64 µs through undici, 76–97 µs through `node:http`
 * with a keep-alive Agent.
 */
import { Pool } from 'undici';
import { WirePool } from './http-wire.js';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

const wires = new Map<string, WirePool>();
const pools = new Map<string, Pool>();

/** One request; rejects on a network error or after `timeoutMs` without an answer. */
export type HttpCall = (
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
) => Promise<HttpAnswer>;

export const httpCall: HttpCall = async (url, method, headers, body, timeoutMs) => {
  const u = new URL(url);
  if (u.protocol !== 'http:') return undiciCall(url, method, headers, body, timeoutMs);
  let wire = wires.get(u.origin);
  if (!wire) wires.set(u.origin, (wire = new WirePool(u.origin)));
  return wire.request(method, u.pathname + u.search, headers, body, timeoutMs);
};

/** The same request through an undici pool (https targets; the client benchmark's peer). */
export const undiciCall: HttpCall = async (url, method, headers, body, timeoutMs) => {
  const u = new URL(url);
  let pool = pools.get(u.origin);
  if (!pool) pools.set(u.origin, (pool = new Pool(u.origin)));
  const res = await pool.request({
    path: u.pathname + u.search,
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return { status: res.statusCode, text: await res.body.text() };
};

/** Closes every connection (the load tester's end, so the process can exit). */
export async function closeHttpPools(): Promise<void> {
  for (const w of wires.values()) w.close();
  wires.clear();
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
