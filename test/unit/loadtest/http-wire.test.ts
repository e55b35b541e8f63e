/**
 * The lean HTTP client (http-wire.ts) against a real node:http server on loopback: keep-alive
 * reuse, concurrency, chunked and close-framed answers, a server that closes idle connections,
 * a connection that dies mid-answer, and a server that does not answer in time.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WirePool } from '../../../tools/loadtest/http-wire.js';

let server: Server | undefined;
let pool: WirePool | undefined;

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, body, res));
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  pool = new WirePool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return { sockets, pool };
}

afterEach(async () => {
  pool?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
  pool = undefined;
});

describe('lean HTTP client', () => {
  it('sends method, path, headers and body, and reuses its connections', async () => {
    const { sockets, pool } = await serve((req, body, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization, body }),
      );
    });
    for (let i = 0; i < 5; i++) {
      const r = await pool.request(
        'POST',
        `/v1/x?i=${i}`,
        { authorization: 'Bearer t' },
        '{"é":1}',
        2000,
      );
      expect(r.status).toBe(201);
      expect(JSON.parse(r.text)).toEqual({
        method: 'POST',
        url: `/v1/x?i=${i}`,
        auth: 'Bearer t',
        body: '{"é":1}',
      });
    }
    expect(sockets.size).toBe(1);
    // Concurrent callers each get their own answer, on as many connections as they need.
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => pool.request('GET', `/n/${i}`, {}, undefined, 2000)),
    );
    expect(all.map((r) => JSON.parse(r.text).url)).toEqual(all.map((_, i) => `/n/${i}`));
    expect(sockets.size).toBeLessThanOrEqual(20);
  });

  it('reads chunked and close-framed bodies, and opens a new connection after a close', async () => {
    const { sockets, pool } = await serve((req, _body, res) => {
      if (req.url === '/chunked') {
        res.writeHead(200);
        res.write('a'.repeat(10_000));
        setTimeout(() => res.end('end'), 10);
      } else {
        res.writeHead(200, { connection: 'close' });
        res.end('closing');
      }
    });
    expect((await pool.request('GET', '/chunked', {}, undefined, 2000)).text).toBe(
      `${'a'.repeat(10_000)}end`,
    );
    expect((await pool.request('GET', '/close', {}, undefined, 2000)).text).toBe('closing');
    expect((await pool.request('GET', '/chunked', {}, undefined, 2000)).status).toBe(200);
    expect(sockets.size).toBe(2);
  });

  it('drops a connection the server closed while idle, and rejects one that dies mid-answer', async () => {
    const { sockets, pool } = await serve((req, _body, res) => {
      if (req.url === '/half') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('only part');
        setTimeout(() => res.socket?.destroy(), 10);
      } else res.end('ok');
    });
    expect((await pool.request('GET', '/', {}, undefined, 2000)).text).toBe('ok');
    for (const s of sockets) s.destroy(); // the server's idle timeout, say
    await new Promise((r) => setTimeout(r, 20));
    expect((await pool.request('GET', '/', {}, undefined, 2000)).text).toBe('ok');
    await expect(pool.request('GET', '/half', {}, undefined, 2000)).rejects.toThrow(/closed/);
    expect((await pool.request('GET', '/', {}, undefined, 2000)).text).toBe('ok');
  });

  it('rejects a malformed answer and goes on with a fresh connection', async () => {
    const { pool } = await serve((req, _body, res) => {
      if (req.url === '/bad') res.socket?.end('HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n');
      else res.end('ok');
    });
    await expect(pool.request('GET', '/bad', {}, undefined, 2000)).rejects.toThrow(
      /content-length/,
    );
    expect((await pool.request('GET', '/', {}, undefined, 2000)).text).toBe('ok');
  });

  it('rejects after the timeout and does not reuse that connection', async () => {
    const { sockets, pool } = await serve((req, _body, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('late'), 500);
      else res.end('ok');
    });
    await expect(pool.request('GET', '/slow', {}, undefined, 50)).rejects.toThrow(
      /no answer in 50 ms/,
    );
    expect((await pool.request('GET', '/', {}, undefined, 2000)).text).toBe('ok');
    expect(sockets.size).toBe(2);
  });
});
