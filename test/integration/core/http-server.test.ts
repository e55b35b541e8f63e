/**
 * Request bodies over a real socket: the app served by @hono/node-server on an ephemeral port,
 * raw node:http clients on one keep-alive connection, the real Cassandra behind the routes.
 * A body over BODY_LIMIT_BYTES gets a readable 413 problem+json (declared by Content-Length or
 * chunked) with `Connection: close` (the rest is not read; the agent opens a new connection), a
 * body cut off by the client is not an unhandled error, and bodies within the limit still reach
 * the routes. Closing promptly, with the bytes the server read, is in api/client-stalls.test.ts.
 */
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.js';
import { makeReadiness } from '../../../src/service/readiness.js';
import { cqlOf } from '../../../src/store/cassandra.js';
import { JWT_SECRET, openCore, randomProfile, tokenFor, type Core } from './harness.js';

const TWO_MB = 2 * 1024 * 1024;
const logged: Array<{ msg: string; err: unknown }> = [];
const answered: number[] = [];
let core: Core;
let server: ServerType;
let port: number;

beforeAll(async () => {
  core = await openCore();
  const app = createApp({
    service: core.service,
    jwtSecret: JWT_SECRET,
    bodyLimitBytes: core.config.BODY_LIMIT_BYTES,
    readiness: makeReadiness({ cql: cqlOf(core.client), redis: core.redis }),
    log: (msg, err) => logged.push({ msg, err }),
  });
  const fetch = async (req: Request, env: unknown) => {
    const res = await app.fetch(req, env as never);
    answered.push(res.status);
    return res;
  };
  await new Promise<void>((resolve) => {
    server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await core.close();
});

interface Sent {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

/** One request; the body goes out in 64 KiB writes honouring backpressure, like a real client. */
function send(
  agent: Agent,
  method: string,
  path: string,
  opts: { body?: Buffer; chunked?: boolean; headers?: Record<string, string> } = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
    if (opts.body && !opts.chunked) headers['content-length'] = String(opts.body.length);
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, type: res.headers['content-type'], body }),
      );
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    const body = opts.body ?? Buffer.alloc(0);
    let offset = 0;
    const pump = () => {
      while (offset < body.length) {
        const chunk = body.subarray(offset, offset + 65_536);
        offset += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const expect413 = (r: Sent) => {
  expect(r.status).toBe(413);
  expect(r.type).toBe('application/problem+json');
  expect(JSON.parse(r.body)).toMatchObject({
    type: 'https://regrid.dev/problems/payload_too_large',
    status: 413,
    code: 'payload_too_large',
  });
};

async function answeredSince(n: number, timeoutMs = 10_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  while (answered.length <= n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return answered[n]!;
}

describe('request bodies over a real socket', () => {
  it('2 MB with Content-Length, then 2 MB chunked, through one keep-alive agent: both 413 problem+json, read by the client, then bodies within the limit are served', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = Buffer.alloc(TWO_MB, 'a');
      expect413(await send(agent, 'POST', '/v1/me/posts', { body: big }));
      expect413(await send(agent, 'POST', '/v1/me/posts', { body: big, chunked: true }));
      const token = await tokenFor(randomProfile());
      const ok = await send(agent, 'POST', '/v1/me/posts', {
        body: Buffer.from(JSON.stringify({ caption: 'x'.repeat(2200) })),
        chunked: true,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(201);
      expect(JSON.parse(ok.body).post.caption).toHaveLength(2200);
      const declared = await send(agent, 'POST', '/v1/me/posts', {
        body: Buffer.from(JSON.stringify({ caption: 'declared' })),
        headers: { authorization: `Bearer ${token}` },
      });
      expect(declared.status).toBe(201);
      expect(JSON.parse(declared.body).post.caption).toBe('declared');
      expect((await send(agent, 'GET', '/healthz')).status).toBe(200);
    } finally {
      agent.destroy();
    }
    expect(logged).toEqual([]);
  });

  it('a body the client cuts off is answered 4xx and logs no unhandled error', async () => {
    const before = answered.length;
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/me/posts',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        agent: false,
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write('{"caption":"' + 'y'.repeat(4000));
      // Give the server time to start reading the body, then vanish mid-body.
      setTimeout(() => req.destroy(), 200);
    });
    const status = await answeredSince(before);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(logged).toEqual([]);
  });
});
