/**
 * Slow and partial requests for the HTTP fuzz (http-fuzz.test.ts), sent on raw sockets to the app
 * on a real Node server: headers that never end, a chunked body that stops after some chunks or
 * inside one, a declared Content-Length that never arrives (or one over the limit). Each is
 * answered by the server's own timeouts or limit (http/body-limit.ts, http/server-options.ts),
 * and `sendStalled` reports what came back and whether the server closed the connection.
 */
import fc from 'fast-check';
import net from 'node:net';

export type Stall = 'headers' | 'chunks' | 'inside-chunk' | 'short-length' | 'no-body';

export interface StalledRequest {
  readonly stall: Stall;
  readonly method: string;
  readonly path: string;
  readonly token: string | undefined;
  /** What is sent of the body before the stall. */
  readonly sent: string;
  /** For `short-length` / `no-body`: the Content-Length declared. */
  readonly declared: number;
}

const PREFIXES = [
  '',
  '{',
  '{"post_id":"1",',
  '{"caption":"',
  '[1,2',
  'x'.repeat(700),
  '{"a":{"b":[',
];

export function stalledRequest(
  paths: readonly string[],
  tokens: readonly string[],
): fc.Arbitrary<StalledRequest> {
  return fc.record({
    stall: fc.constantFrom<Stall>('headers', 'chunks', 'inside-chunk', 'short-length', 'no-body'),
    method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
    path: fc.constantFrom(...paths),
    token: fc.option(fc.constantFrom(...tokens), { nil: undefined }),
    sent: fc.constantFrom(...PREFIXES),
    // Mostly within the 16 KB limit; now and then far over it (a 413, not a wait).
    declared: fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 1, max: 8_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 50_000_000 }) },
    ),
  });
}

export interface WireAnswer {
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The server closed the connection (within `maxMs`). */
  readonly closed: boolean;
}

const frame = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

function bytesOf(r: StalledRequest): string {
  const auth = r.token ? `Authorization: Bearer ${r.token}\r\n` : '';
  const head = `${r.method} ${r.path} HTTP/1.1\r\nHost: fuzz.test\r\n${auth}Content-Type: application/json\r\n`;
  switch (r.stall) {
    case 'headers':
      return head; // no blank line: the headers never end
    case 'chunks':
      return `${head}Transfer-Encoding: chunked\r\n\r\n${r.sent ? frame(r.sent) : ''}`;
    case 'inside-chunk':
      return `${head}Transfer-Encoding: chunked\r\n\r\n${(r.sent.length + 10).toString(16)}\r\n${r.sent}`;
    case 'short-length': {
      const declared = Math.max(r.declared, Buffer.byteLength(r.sent) + 1);
      return `${head}Content-Length: ${declared}\r\n\r\n${r.sent}`;
    }
    case 'no-body':
      return `${head}Content-Length: ${r.declared}\r\n\r\n`;
  }
}

/** Sends `r` on a fresh connection and waits up to `maxMs` for the server to close it. */
export function sendStalled(port: number, r: StalledRequest, maxMs: number): Promise<WireAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(received), closed });
    };
    const timer = setTimeout(() => done(false), maxMs);
    socket.on('connect', () => socket.write(bytesOf(r)));
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
  });
}

function parse(text: string): Omit<WireAnswer, 'closed'> {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: undefined, headers: {}, body: '' };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) };
}
