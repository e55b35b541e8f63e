import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseResponseHead,
  responseBodyEnd,
  type ResponseHead,
} from '../../../tools/loadtest/http-wire-parse.js';

const head = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');

/** Feeds `bytes` in the given cut points, as a socket would; the response once framed. */
function feed(bytes: Buffer, cuts: number[]) {
  let buf: Buffer = Buffer.alloc(0);
  let h: ResponseHead | undefined;
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  for (const end of [...points, bytes.length]) {
    buf = bytes.subarray(0, end);
    h ??= parseResponseHead(buf);
    if (!h) continue;
    const done = responseBodyEnd(buf, h);
    if (done) return { head: h, ...done };
  }
  return undefined;
}

describe('lean HTTP client framing', () => {
  it('reads status, Content-Length framing and Connection: close', () => {
    const h = parseResponseHead(
      head(['HTTP/1.1 201 Created', 'Content-Type: application/json', 'Content-Length: 7']),
    )!;
    expect(h).toMatchObject({ status: 201, length: 7, closes: false });
    expect(
      parseResponseHead(head(['HTTP/1.1 200 OK', 'connection: Close', 'content-length: 0'])),
    ).toMatchObject({ closes: true, length: 0 });
    // No framing at all: the body runs to the close, which also ends the connection.
    expect(parseResponseHead(head(['HTTP/1.1 200 OK']))).toMatchObject({
      length: 'close',
      closes: true,
    });
    // 204 and 304 have no body whatever their headers say.
    expect(
      parseResponseHead(head(['HTTP/1.1 304 Not Modified', 'Content-Length: 9']))?.length,
    ).toBe(0);
  });

  it('waits for the whole head and refuses what is not HTTP/1.x', () => {
    expect(
      parseResponseHead(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n')),
    ).toBeUndefined();
    expect(() => parseResponseHead(head(['SSH-2.0-x']))).toThrow(/status line/);
    expect(() => parseResponseHead(head(['HTTP/1.1 200 OK', 'no colon']))).toThrow(/header/);
    expect(() => parseResponseHead(head(['HTTP/1.1 200 OK', 'Content-Length: 1x']))).toThrow(
      /content-length/,
    );
  });

  it('frames any body, by length or in any chunks, however the bytes arrive', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.string({ maxLength: 30 }),
        (body, chunked, sizes, cuts, trailing) => {
          const data = Buffer.from(body, 'utf8');
          let wire: Buffer;
          if (chunked) {
            const parts: Buffer[] = [head(['HTTP/1.1 200 OK', 'Transfer-Encoding: chunked'])];
            let at = 0;
            for (let i = 0; at < data.length; i++) {
              const n = Math.min(sizes[i % Math.max(1, sizes.length)] ?? 7, data.length - at);
              parts.push(
                Buffer.from(`${n.toString(16)}\r\n`),
                data.subarray(at, at + n),
                Buffer.from('\r\n'),
              );
              at += n;
            }
            parts.push(Buffer.from('0\r\n\r\n'));
            wire = Buffer.concat(parts);
          } else {
            wire = Buffer.concat([
              head(['HTTP/1.1 200 OK', `Content-Length: ${data.length}`]),
              data,
            ]);
          }
          const framed = feed(wire, cuts);
          expect(framed?.body).toBe(body);
          expect(framed?.consumed).toBe(wire.length);
          // Bytes after the response are not part of it.
          const more = Buffer.concat([wire, Buffer.from(trailing)]);
          const h = parseResponseHead(more)!;
          expect(responseBodyEnd(more, h)).toEqual({ body, consumed: wire.length });
        },
      ),
    );
  });

  it('ends a chunked body after its trailers', () => {
    const wire = Buffer.concat([
      head(['HTTP/1.1 200 OK', 'Transfer-Encoding: gzip, chunked']),
      Buffer.from('3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n'),
    ]);
    const h = parseResponseHead(wire)!;
    expect(h.length).toBe('chunked');
    expect(responseBodyEnd(wire, h)).toEqual({ body: 'abc', consumed: wire.length });
    expect(responseBodyEnd(wire.subarray(0, wire.length - 2), h)).toBeUndefined();
    const bad = Buffer.concat([
      head(['HTTP/1.1 200 OK', 'Transfer-Encoding: chunked']),
      Buffer.from('zz\r\n'),
    ]);
    expect(() => responseBodyEnd(bad, parseResponseHead(bad)!)).toThrow(/chunk size/);
  });
});
