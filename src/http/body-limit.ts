/**
 * The request body limit and deadline, and the one place a body is read off the wire (routes
 * then read the buffered copy). Mounted on every route that carries a body (and answered on an
 * unknown path), ahead of the request deadline (app.ts): how long a client takes to send its body
 * is the client's, not the store's.
 *
 * - A declared `Content-Length` over the limit is answered 413 before the body is touched.
 * - Otherwise (chunked, or a declared length within the limit) the body is read here, stopping at
 *   the limit: past it the answer is 413 and nothing more is read.
 * - A body not complete `timeoutMs` after reading began (behind the Node adapter) is 408
 *   `request_timeout`: the client's stall, not a 503 blaming the store.
 * - A 413 and a 408 carry `Connection: close`: Node closes the connection once the answer is
 *   written, instead of reading (and dropping) the rest of an upload or waiting for a stalled one.
 * - A body the client cut off (`aborted`) is a 400, not an unhandled error.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../domain/errors.js';
import { headerOf, type AppEnv } from './env.js';
import { problemResponse } from './problem.js';

/** Past this much excess the background drain of a web stream gives up and cancels it. */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

const CLOSE = { connection: 'close' };

const tooLarge = (max: number) =>
  problemResponse({
    status: 413,
    code: 'payload_too_large',
    detail: `bodies are limited to ${max} bytes`,
    headers: CLOSE,
  });

const timedOut = (ms: number) =>
  problemResponse({
    status: 408,
    code: 'request_timeout',
    detail: `the request body did not arrive within ${ms} ms`,
    headers: CLOSE,
  });

const TOO_LARGE = Symbol('too large');
const TIMED_OUT = Symbol('timed out');

/**
 * Whether requests of `method` carry a body here: only those are read, because touching
 * `c.req.raw` makes the Node adapter build a full fetch `Request` (app.ts mounts the limit per
 * route, so a GET of most routes does not even run it).
 */
export const carriesBody = (method: string): boolean =>
  method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/**
 * The limit of a request that carries a body (`carriesBody`); any other, or one whose body this
 * already read (a gate's path, then no route: app.ts), is passed on.
 */
export function bodyLimit(maxBytes: number, timeoutMs: number): MiddlewareHandler {
  return async function limitBody(c, next) {
    if (!carriesBody(c.req.method)) return next();
    if ((c as Context<AppEnv>).get('bodyText') !== undefined) return next();
    const declared = headerOf(c, 'content-length');
    if (declared !== undefined && headerOf(c, 'transfer-encoding') === undefined) {
      if (!/^[0-9]+$/.test(declared)) {
        throw new DomainError('invalid_request', 'Content-Length must be a decimal number');
      }
      // Checked before touching `c.req.raw.body`: reading it would start a stream reader.
      if (Number(declared) > maxBytes) return tooLarge(maxBytes);
    }
    const incoming = nodeRequestOf(c.env);
    if (incoming) {
      // Behind @hono/node-server: read the Node stream itself. Going through `c.req.raw.body`
      // built a fetch Request, a web stream and an AbortSignal per write request.
      const text = await readNodeBody(incoming, maxBytes, timeoutMs);
      if (text === TOO_LARGE) return tooLarge(maxBytes);
      if (text === TIMED_OUT) return timedOut(timeoutMs);
      (c as Context<AppEnv>).set('bodyText', text);
      return next();
    }
    const stream = c.req.raw.body;
    if (!stream) return next();
    const body = await readAtMost(stream, maxBytes);
    if (body === undefined) return tooLarge(maxBytes);
    c.req.raw = new Request(c.req.raw, { body });
    return next();
  };
}

/** The whole body, or undefined when it is longer than `max` (the rest is then discarded). */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks, size);
      size += value.byteLength;
      if (size > max) {
        void discard(reader);
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    throw new DomainError('invalid_request', 'the request body ended before it was complete');
  }
}

async function discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let dropped = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
      if (dropped > DISCARD_MAX_BYTES) return void (await reader.cancel());
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}

/** The Node request under the adapter, while nobody has read from it yet. */
function nodeRequestOf(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || typeof incoming.on !== 'function' || incoming.readableDidRead) return undefined;
  return incoming;
}

/**
 * The whole body as UTF-8; TOO_LARGE past `max` bytes, TIMED_OUT when it is not complete within
 * `timeoutMs`. Either way nothing more is read: the answer closes the connection. Aborted by the
 * client: a 400.
 */
function readNodeBody(
  incoming: IncomingMessage,
  max: number,
  timeoutMs: number,
): Promise<string | typeof TOO_LARGE | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (answer: typeof TOO_LARGE | typeof TIMED_OUT) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.pause();
      incoming.on('error', () => undefined); // the close that follows the answer
      resolve(answer);
    };
    const timer = setTimeout(() => stop(TIMED_OUT), timeoutMs);
    const cut = () => {
      clearTimeout(timer);
      reject(new DomainError('invalid_request', 'the request body ended before it was complete'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= max) chunks.push(chunk);
      else stop(TOO_LARGE);
    };
    incoming.on('data', onData);
    incoming.once('aborted', cut);
    incoming.once('error', cut);
    incoming.once('close', () => {
      if (!incoming.complete) cut(); // closed before the end: settled once, so harmless after it
    });
    incoming.once('end', () => {
      clearTimeout(timer);
      incoming.off('aborted', cut);
      if (size <= max) resolve(Buffer.concat(chunks, size).toString('utf8'));
    });
  });
}
