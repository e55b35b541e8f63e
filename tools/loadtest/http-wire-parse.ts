/**
 * Response framing for the load tester's lean HTTP/1.1 client (http-wire.ts), pure: where the
 * head ends, what frames the body (RFC 9112 §6.3: Content-Length, chunked, or the connection's
 * close), and where the body ends in the bytes received so far.
 */

export interface ResponseHead {
  readonly status: number;
  /** Offset of the first body byte. */
  readonly bodyStart: number;
  /** Body length in bytes, `chunked`, or `close` (the body runs to the connection's end). */
  readonly length: number | 'chunked' | 'close';
  /** The server said `Connection: close`: the connection must not be reused. */
  readonly closes: boolean;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** The parsed head once all of it has arrived, else undefined; throws on a malformed one. */
export function parseResponseHead(buf: Buffer): ResponseHead | undefined {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return undefined;
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!);
  if (!m) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(lines[0])}`);
  const status = Number(m[1]);
  let contentLength: number | undefined;
  let chunked = false;
  let closes = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed header line: ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value)) throw new Error(`bad content-length: ${value}`);
      contentLength = Number(value);
    } else if (name === 'transfer-encoding') {
      chunked = value
        .toLowerCase()
        .split(',')
        .some((t) => t.trim() === 'chunked');
    } else if (name === 'connection') {
      closes = value
        .toLowerCase()
        .split(',')
        .some((t) => t.trim() === 'close');
    }
  }
  const bodyless = status === 204 || status === 304 || (status >= 100 && status < 200);
  const length = bodyless ? 0 : chunked ? 'chunked' : (contentLength ?? 'close');
  return { status, bodyStart: end + 4, length, closes: closes || length === 'close' };
}

/**
 * The body (decoded as UTF-8) and the bytes the response took, once all of it is in `buf`;
 * undefined while more is due (always for `close` framing: only the close ends it).
 */
export function responseBodyEnd(
  buf: Buffer,
  head: ResponseHead,
): { body: string; consumed: number } | undefined {
  const { bodyStart, length } = head;
  if (length === 'close') return undefined;
  if (typeof length === 'number') {
    const consumed = bodyStart + length;
    if (buf.length < consumed) return undefined;
    return { body: buf.toString('utf8', bodyStart, consumed), consumed };
  }
  const parts: Buffer[] = [];
  let at = bodyStart;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const sizeText = buf.toString('latin1', at, eol).split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error(`bad chunk size: ${sizeText}`);
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // Trailers (none expected) end with an empty line.
      const done = buf.indexOf(CRLF2, eol);
      if (done === eol) return { body: Buffer.concat(parts).toString('utf8'), consumed: eol + 4 };
      if (buf.length < eol + 4) return undefined;
      if (done < 0) return undefined;
      return { body: Buffer.concat(parts).toString('utf8'), consumed: done + 4 };
    }
    const dataEnd = eol + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    parts.push(buf.subarray(eol + 2, dataEnd));
    at = dataEnd + 2;
  }
}
