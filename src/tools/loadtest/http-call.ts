/**
 * The load tester's HTTP client: node:http on keep-alive sockets. The load generator shares the
 * machine's cores with the server and Cassandra, so what it spends per request is taken from
 * what it measures; `fetch` (a WHATWG Request, Headers, a body stream and an AbortSignal timer per
 * call) cost several times this plain request on the same loopback socket.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

const agents = {
  http: new HttpAgent({ keepAlive: true }),
  https: new HttpsAgent({ keepAlive: true }),
};

/** One request; rejects on a network error or after `timeoutMs` without an answer. */
export function httpCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<HttpAnswer> {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  const send = tls ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = send(
      u,
      {
        method,
        agent: tls ? agents.https : agents.http,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${u.host} within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}
