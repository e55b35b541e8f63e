/**
 * The load tester's HTTP client: undici pools of keep-alive connections, one per origin. The
 * load generator shares the machine's cores with the server and Cassandra, so what it spends per
 * request is taken from what it measures. `npx tsx bench/http-client.ts` (16 concurrent senders,
 * small JSON bodies, a bare node:http server): 29–52 µs of client CPU per request through undici
 * against 55–76 µs through `node:http` with a keep-alive Agent; `fetch` (a WHATWG Request,
 * Headers, a body stream and an AbortSignal timer per call) costs more than either.
 */
import { Pool } from 'undici';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

const pools = new Map<string, Pool>();

function poolOf(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin);
    pools.set(origin, pool);
  }
  return pool;
}

/** One request; rejects on a network error or after `timeoutMs` without an answer. */
export async function httpCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<HttpAnswer> {
  const u = new URL(url);
  const res = await poolOf(u.origin).request({
    path: u.pathname + u.search,
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Closes every pool (the load tester's end, so the process can exit). */
export async function closeHttpPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
