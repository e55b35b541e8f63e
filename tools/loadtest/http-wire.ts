/**
 * A lean HTTP/1.1 client for the load tester: keep-alive connections per origin, one request at
 * a time on each, the request written in one `write`, the response parsed in place. The load
 * generator shares the machine's cores with the server and Cassandra, so what it spends per
 * request is taken from what it measures; a general client (undici, node:http) spends most of a
 * request on machinery this traffic never needs (streams, dispatcher hooks, header objects).
 * `npx tsx bench/http-client.ts` measures the clients side by side.
 *
 * What it speaks: requests with a string body (or none), responses framed by Content-Length or
 * chunked transfer coding (or ended by the connection closing), `Connection: close`. Not HEAD
 * (its answer has no body whatever its Content-Length says), not `Expect: 100-continue`, no
 * pipelining. A connection that errs, closes, times out or answers out of turn is dropped,
 * never reused.
 */
import { connect, type Socket } from 'node:net';
import { parseResponseHead, responseBodyEnd, type ResponseHead } from './http-wire-parse.js';

export interface WireAnswer {
  readonly status: number;
  readonly text: string;
}

interface Pending {
  readonly resolve: (a: WireAnswer) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private head: ResponseHead | undefined;
  private pending: Pending | undefined;
  closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly release: (c: Connection) => void,
    private readonly dropped: (c: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.onData(chunk);
      } catch (err) {
        this.fail(err as Error, false); // a malformed answer: this connection is done
      }
    });
    socket.on('end', () => this.fail(new Error('connection closed by the server'), true));
    socket.on('close', () => this.fail(new Error('connection closed'), true));
    socket.on('error', (err) => this.fail(err, false));
  }

  send(request: string, timeoutMs: number): Promise<WireAnswer> {
    return new Promise<WireAnswer>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`no answer in ${timeoutMs} ms`), false),
        timeoutMs,
      );
      this.pending = { resolve, reject, timer };
      this.socket.write(request);
    });
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (!this.pending) return this.fail(new Error('bytes arrived with no request waiting'), false);
    if (!this.head) {
      this.head = parseResponseHead(this.buf);
      if (!this.head) return;
    }
    const end = responseBodyEnd(this.buf, this.head);
    if (end === undefined) return;
    const { status, closes } = this.head;
    const text = end.body;
    const rest = this.buf.subarray(end.consumed);
    this.buf = Buffer.alloc(0);
    this.head = undefined;
    const p = this.pending;
    this.pending = undefined;
    clearTimeout(p.timer);
    if (closes || rest.length > 0) this.drop();
    else this.release(this);
    p.resolve({ status, text });
  }

  /** `ended`: the server closed; a body framed by the close is complete then. */
  private fail(err: Error, ended: boolean): void {
    const p = this.pending;
    this.pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      if (ended && this.head && this.head.length === 'close') {
        p.resolve({
          status: this.head.status,
          text: this.buf.subarray(this.head.bodyStart).toString('utf8'),
        });
      } else {
        p.reject(err);
      }
    }
    this.drop();
  }

  private drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.dropped(this);
  }

  close(): void {
    this.drop();
  }
}

/** Keep-alive connections to one origin (`http://host:port`), opened as concurrency asks. */
export class WirePool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;

  constructor(origin: string) {
    const u = new URL(origin);
    if (u.protocol !== 'http:')
      throw new Error(`the lean client speaks plain http only (${origin})`);
    this.host = u.hostname;
    this.port = Number(u.port || 80);
  }

  async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<WireAnswer> {
    if (method === 'HEAD')
      throw new Error('the lean client does not send HEAD (a bodiless answer)');
    let text = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    else text += '\r\n';
    const conn = await this.connection();
    return conn.send(text, timeoutMs);
  }

  private async connection(): Promise<Connection> {
    for (let c = this.idle.pop(); c; c = this.idle.pop()) if (!c.closed) return c;
    const socket = connect({ host: this.host, port: this.port });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const conn = new Connection(
      socket,
      (c) => this.idle.push(c),
      (c) => this.all.delete(c),
    );
    this.all.add(conn);
    return conn;
  }

  close(): void {
    for (const c of [...this.all]) c.close();
    this.all.clear();
    this.idle.length = 0;
  }
}
