/**
 * A client's own stall is the client's, on real sockets against the app on a real Node server
 * built as src/server.ts builds it (`serve` with the server options of src/http/server-options.ts):
 *   - a body that does not arrive within BODY_TIMEOUT_MS is 408 problem+json with
 *     `Connection: close`, and the connection is closed (on /v1 writes and elsewhere), never a
 *     503 that blames the store; a slow body that does arrive in time is not cut by the write
 *     deadline either (that deadline is for the store);
 *   - headers that do not arrive within HTTP_HEADERS_TIMEOUT_MS get Node's 408 and a close;
 *   - an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS;
 *   - a 10 MB upload gets its 413 and the connection is closed without reading the rest.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createApp } from '../../../src/http/app.js';
import { deadlinesOf } from '../../../src/http/deadline.js';
import { GridService } from '../../../src/service/grid-service.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { connectTestClient, idsFromWorkers, testConfig } from '../support/stores.js';

const BODY_TIMEOUT_MS = 1_000;
const HEADERS_TIMEOUT_MS = 600;
const KEEP_ALIVE_MS = 700;
/** Below the body deadline, so a body slower than it but in time shows whose clock runs. */
const WRITE_DEADLINE_MS = 600;

let config: Config;
let client: Client;
let server: Server;
let port: number;
/** Bytes the server read from each connection, by the client's local port. */
const bytesRead = new Map<number, () => number>();

beforeAll(async () => {
  config = testConfig({
    BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS + 2_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    REQUEST_DEADLINE_WRITE_MS: String(WRITE_DEADLINE_MS),
  });
  client = await connectTestClient(config);
  const app = createApp({
    service: new GridService({
      cql: cqlOf(client),
      config,
      ids: idsFromWorkers(7580, 10),
      cursorSecret: 'client-stalls-cursor-secret-0123',
    }),
    jwtSecret: 'client-stalls-jwt-secret-0123456789',
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    readiness: async () => ({ ready: true, checks: {} }),
    deadlines: deadlinesOf(config),
  });
  // Looked up at run time: before src/http/server-options.ts existed the server ran on Node's
  // defaults, which is what these tests show failing.
  const where = '../../../src/http/server-options.js';
  const options = await import(/* @vite-ignore */ where).then(
    (m: { serverOptionsOf: (c: Config) => object }) => m.serverOptionsOf(config),
    () => ({}),
  );
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, ...options, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(),
    ) as Server;
  });
  port = (server.address() as AddressInfo).port;
  server.on('connection', (s: net.Socket) => {
    const remote = s.remotePort;
    if (remote !== undefined) bytesRead.set(remote, () => s.bytesRead);
  });
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await client?.shutdown();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * One raw connection: what it received, the first reply parsed, and when the server closed it
 * (`closedMs`, from the connection's start; undefined while open).
 */
class Raw {
  readonly socket: net.Socket;
  private received = Buffer.alloc(0);
  readonly t0 = performance.now();
  closedMs: number | undefined;
  answeredMs: number | undefined;
  private waiters: Array<() => void> = [];

  constructor() {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      if (this.answeredMs === undefined && this.reply()) this.answeredMs = this.ms();
      this.wake();
    });
    this.socket.on('error', () => undefined); // a reset while still sending: seen as the close
    this.socket.on('close', () => {
      this.closedMs = this.ms();
      this.wake();
    });
  }

  private localPort = -1;

  ready(): Promise<void> {
    return new Promise((resolve) =>
      this.socket.once('connect', () => {
        this.localPort = this.socket.localPort!;
        resolve();
      }),
    );
  }

  ms(): number {
    return performance.now() - this.t0;
  }

  /** The server's count of bytes it read from this connection. */
  serverRead(): number {
    return bytesRead.get(this.localPort)?.() ?? -1;
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when `done()` holds, or after `maxMs` (then the caller's expectations fail). */
  async until(done: () => boolean, maxMs: number): Promise<void> {
    const end = performance.now() + maxMs;
    while (!done() && performance.now() < end) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, Math.max(1, end - performance.now()));
      });
    }
  }

  /** The first complete reply (Content-Length, or up to the close), if it has arrived. */
  reply(): Reply | undefined {
    const text = this.received.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const rest = text.slice(end + 4);
    const length = headers['content-length'];
    if (length !== undefined && rest.length < Number(length)) return undefined;
    if (length === undefined && this.closedMs === undefined) return undefined;
    const body = length === undefined ? rest : rest.slice(0, Number(length));
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }

  close() {
    this.socket.destroy();
  }
}

const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

/** Headers of a chunked POST, then the first part of a JSON body, and then nothing. */
async function stalledBody(path: string): Promise<Raw> {
  const raw = new Raw();
  await raw.ready();
  raw.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Transfer-Encoding: chunked\r\n\r\n${chunk('{"post_id":"1",')}`,
  );
  return raw;
}

const expectTimeout408 = (raw: Raw) => {
  const reply = raw.reply();
  expect(reply?.status, `received: ${JSON.stringify(reply)}`).toBe(408);
  expect(reply!.headers['content-type']).toContain('application/problem+json');
  expect(reply!.headers['connection']).toBe('close');
  expect(JSON.parse(reply!.body)).toMatchObject({
    type: 'https://regrid.dev/problems/request_timeout',
    status: 408,
    code: 'request_timeout',
  });
};

describe('a body that does not arrive', () => {
  it('on a /v1 write: 408 problem+json at the body deadline, the connection closed; no 503', async () => {
    const raw = await stalledBody('/v1/me/grid/moves');
    await raw.until(() => raw.closedMs !== undefined, 5_000);
    expectTimeout408(raw);
    expect(raw.answeredMs!).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 5);
    expect(raw.closedMs).toBeDefined();
    console.log(
      `[client stalls] /v1 stalled body: 408 after ${raw.answeredMs!.toFixed(0)} ms, closed after ${raw.closedMs!.toFixed(0)} ms (body deadline ${BODY_TIMEOUT_MS} ms)`,
    );
  });

  it('on a path outside /v1: the same 408 and close, not Node’s default after minutes', async () => {
    const raw = await stalledBody('/no-such-route');
    await raw.until(() => raw.closedMs !== undefined, 5_000);
    expectTimeout408(raw);
    expect(raw.closedMs).toBeDefined();
  });

  it('a slow body that arrives within the body deadline is not cut off by the write deadline', async () => {
    // The write deadline is the store's (src/http/deadline.ts): it starts once the body is in.
    const raw = new Raw();
    await raw.ready();
    raw.socket.write(
      `POST /v1/me/grid/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunk('{"post_id":"1",')}`,
    );
    await sleep(WRITE_DEADLINE_MS + 200); // past the write deadline, within the body deadline
    raw.socket.write(`${chunk('"after":null}')}0\r\n\r\n`);
    await raw.until(() => raw.reply() !== undefined, 5_000);
    // No token: the answer is the client's 401, whatever the body took.
    expect(raw.reply()?.status).toBe(401);
    raw.close();
  });
});

describe('server timeouts set from the configuration', () => {
  it('headers that do not arrive: 408 and a close after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const raw = new Raw();
    await raw.ready();
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // never the blank line
    await raw.until(() => raw.closedMs !== undefined, 5_000);
    expect(raw.reply()?.status).toBe(408);
    expect(raw.closedMs!).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 5);
    console.log(
      `[client stalls] stalled headers: closed after ${raw.closedMs!.toFixed(0)} ms (headers timeout ${HEADERS_TIMEOUT_MS} ms)`,
    );
  });

  it('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const raw = new Raw();
    await raw.ready();
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await raw.until(() => raw.reply() !== undefined, 5_000);
    expect(raw.reply()?.status).toBe(200);
    const answered = raw.answeredMs!;
    // Node's default would be 5 s.
    await raw.until(() => raw.closedMs !== undefined, 4_000);
    expect(raw.closedMs).toBeDefined();
    const idle = raw.closedMs! - answered;
    expect(idle).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    console.log(
      `[client stalls] idle keep-alive: closed ${idle.toFixed(0)} ms after the answer (keep-alive timeout ${KEEP_ALIVE_MS} ms)`,
    );
  });
});

describe('a 10 MB upload', () => {
  const TOTAL = 10 * 1024 * 1024;

  /** Sends `TOTAL` bytes as fast as the connection takes them, until it is closed. */
  async function upload(head: string, framed: (part: Buffer) => Buffer): Promise<Raw> {
    const raw = new Raw();
    await raw.ready();
    raw.socket.write(head);
    const part = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    while (sent < TOTAL && raw.closedMs === undefined && !raw.socket.destroyed) {
      const ok = raw.socket.write(framed(part));
      sent += part.length;
      if (!ok) {
        await Promise.race([
          new Promise((r) => raw.socket.once('drain', r)),
          new Promise((r) => raw.socket.once('close', r)),
        ]);
      }
    }
    await raw.until(() => raw.closedMs !== undefined, 5_000);
    return raw;
  }

  const expect413Closed = (raw: Raw, what: string) => {
    const reply = raw.reply();
    const read = raw.serverRead();
    console.log(
      `[client stalls] 10 MB ${what}: ${reply?.status} after ${raw.answeredMs?.toFixed(0)} ms, ` +
        `closed after ${raw.closedMs?.toFixed(0)} ms, server read ${read} of ${TOTAL} bytes`,
    );
    expect(reply?.status).toBe(413);
    expect(reply!.headers['content-type']).toContain('application/problem+json');
    expect(reply!.headers['connection']).toBe('close');
    expect(raw.closedMs, 'the server closed the connection').toBeDefined();
    // Not the rest of the upload: at most what the kernel buffers took before the close.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(TOTAL / 4);
  };

  it('declared by Content-Length: 413 and a close without reading the body', async () => {
    const head =
      `POST /v1/me/grid/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${TOTAL}\r\n\r\n`;
    expect413Closed(await upload(head, (p) => p), 'with Content-Length');
  });

  it('chunked: 413 past the limit and a close without reading the rest', async () => {
    const head =
      `POST /v1/me/grid/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Transfer-Encoding: chunked\r\n\r\n`;
    const framed = (p: Buffer) =>
      Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]);
    expect413Closed(await upload(head, framed), 'chunked');
  });
});
