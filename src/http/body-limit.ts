/**
 * The request body limit, and the one place a body is read off the wire (routes then read the
 * buffered copy).
 *
 * - A declared `Content-Length` over the limit is answered 413 before the body is touched: the
 *   Node adapter then drains what nobody read and the connection stays usable.
 * - Otherwise (chunked, or a declared length within the limit) the body is read here, stopping at
 *   the limit. Past it the answer is 413 and the rest is read and dropped in the background,
 *   bounded: a client that is still sending gets to read the answer instead of a reset, and a
 *   web stream left half-read would keep the Node adapter from draining the socket.
 * - A body the client cut off (`aborted`) is a 400, not an unhandled error.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/errors.js';
import { problemResponse } from './problem.js';

/** Past this much excess the background drain gives up and cancels the stream. */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

const tooLarge = (max: number) =>
  problemResponse({
    status: 413,
    code: 'payload_too_large',
    detail: `bodies are limited to ${max} bytes`,
  });

/**
 * Methods whose requests carry no body here: left alone, because touching `c.req.raw` makes the
 * Node adapter build a full fetch `Request` (a measurable share of a cached page read's CPU).
 */
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function bodyLimit(maxBytes: number): MiddlewareHandler {
  return async function limitBody(c, next) {
    if (BODYLESS.has(c.req.method)) return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (!/^[0-9]+$/.test(declared)) {
        throw new DomainError('invalid_request', 'Content-Length must be a decimal number');
      }
      // Checked before touching `c.req.raw.body`: reading it would start a stream reader.
      if (Number(declared) > maxBytes) return tooLarge(maxBytes);
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
