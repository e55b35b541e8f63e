/**
 * Loopback HTTP plumbing for the read benchmark: serve a Hono app on an ephemeral port, drive it
 * with autocannon (in a worker thread, so the load generator does not share the server's event
 * loop), and fire a burst of simultaneous requests for the thundering-herd measurement.
 */
import { createAdaptorServer } from '@hono/node-server';
import autocannon from 'autocannon';
import { Agent, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';

export interface Served {
  readonly base: string;
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function listen(app: Hono<any>): Promise<Served> {
  const server = createAdaptorServer({ fetch: app.fetch });
  // A deep accept backlog: the herd opens 1,000 connections at once, and with the default 511
  // the overflow would be retried a second later and arrive after the fill (hiding the herd).
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 4096, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export interface LoadResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  readonly errors: number;
}

/**
 * A fixed-duration closed-loop run against one URL; any answer but `expect` (200 unless told)
 * counts as an error.
 */
export async function cannon(
  url: string,
  seconds: number,
  connections = 32,
  opts: { headers?: Record<string, string>; expect?: 200 | 304 } = {},
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    duration: seconds,
    connections,
    workers: 1,
    ...(opts.headers ? { headers: opts.headers } : {}),
  });
  // autocannon counts answers by status class; its typings leave these fields out.
  const by = r as unknown as Record<'1xx' | '2xx' | '3xx' | '4xx' | '5xx', number>;
  const wrong = opts.expect === 304 ? by['2xx'] : by['3xx'];
  return {
    rps: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors + r.timeouts + by['1xx'] + by['4xx'] + by['5xx'] + wrong,
  };
}

/**
 * `n` keep-alive connections opened beforehand (`open`), then one GET on each sent at once
 * (`fire`), so all `n` requests reach the server within a few milliseconds: a herd that a
 * connection-setup storm would otherwise spread out over much longer than a fill takes.
 */
export async function herdClients(url: string, n: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });
  const once = () =>
    new Promise<number>((resolve) => {
      const req = get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
    });
  const all = () => Promise.all(Array.from({ length: n }, once));
  return {
    /** Opens the connections (one warm-up GET each). */
    open: all,
    /** One GET per open connection, all at once; resolves to the status codes. */
    fire: all,
    close: () => agent.destroy(),
  };
}

/** Wall-clock milliseconds of one GET (status checked). */
export async function timedGet(url: string): Promise<{ ms: number; body: string; etag: string }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}: ${body.slice(0, 200)}`);
  return { ms, body, etag: res.headers.get('etag') ?? '' };
}
