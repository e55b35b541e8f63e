/**
 * One typed call of any route: builds the URL from the route table, adds the bearer token,
 * a fresh `Idempotency-Key` on every write unless told otherwise (so a retry of the same call
 * object can reuse it), `If-Match`/`If-None-Match`, and turns problem+json into RegridError.
 * Uses only `fetch`, `URLSearchParams` and `crypto.getRandomValues` (keys.ts), so it runs in
 * Node 20 and in browsers, on any origin.
 */
import { ROUTES } from './api.gen.js';
import { randomKey } from './keys.js';
import { RegridError, type ProblemBody } from './problem.js';
import type { Auth, CallInput, OperationId, Reply } from './types.js';

export type Token = string | (() => string | Promise<string>);

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string;
  /** The user JWT for /v1/me/* (a function is asked before each call). */
  readonly token?: Token;
  /** ADMIN_TOKEN for /v1/admin/*. */
  readonly adminToken?: Token;
  /** The service token for the routes a backend calls on behalf of profiles (auth `service`). */
  readonly serviceToken?: Token;
  readonly fetch?: typeof fetch;
  /** Makes the Idempotency-Key of a write (default: 122 random bits, keys.ts). */
  readonly newKey?: () => string;
  /**
   * Retries of a 503 (and of a 409 `idempotency_in_flight`) after its Retry-After, and of a
   * request that got no answer at all (`network_error`, after 0.25 s, 0.5 s, …), each wait
   * capped at `maxWaitMs` (default 5 s). Writes are retried with the same Idempotency-Key, so
   * they are applied at most once; a write sent without a key is not retried when its outcome
   * is unknown (`write_outcome_unknown`, or no answer). Default 0.
   */
  readonly retries?: number;
  readonly maxWaitMs?: number;
  /** Told of every 401 before it is thrown (a sign-in expired, or the server's secret changed). */
  readonly onUnauthorized?: (err: RegridError) => void;
}

export type Call = <K extends OperationId>(op: K, input?: CallInput<K>) => Promise<Reply<K>>;

export function makeCall(options: ClientOptions): Call {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const newKey = options.newKey ?? randomKey;
  const tokens: Record<Auth, Token | undefined> = {
    user: options.token,
    admin: options.adminToken,
    service: options.serviceToken,
    none: undefined,
  };
  const retries = options.retries ?? 0;
  const maxWaitMs = options.maxWaitMs ?? 5000;

  return async function call<K extends OperationId>(
    op: K,
    input: CallInput<K> = {},
  ): Promise<Reply<K>> {
    const route = ROUTES[op];
    const params = (input.params ?? {}) as Record<string, string>;
    const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
      const v = params[name];
      if (v === undefined) throw new TypeError(`${op}: path parameter ${name} is missing`);
      return encodeURIComponent(v);
    });
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (v !== undefined && v !== null) qs.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = tokens[route.auth];
    if (token !== undefined) {
      headers['authorization'] = `Bearer ${typeof token === 'function' ? await token() : token}`;
    }
    if (route.idempotent && input.idempotencyKey !== false) {
      headers['idempotency-key'] = `"${input.idempotencyKey ?? newKey()}"`;
    }
    if (input.ifMatch !== undefined) headers['if-match'] = input.ifMatch;
    if (input.ifNoneMatch !== undefined) headers['if-none-match'] = input.ifNoneMatch;
    let body: string | undefined;
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    }

    const url = `${base}${path}${qs.size ? `?${qs}` : ''}`;
    const keyed = headers['idempotency-key'] !== undefined;
    for (let retry = 0; ; retry++) {
      try {
        return await once<K>(url, route.method, headers, body, input.signal);
      } catch (err) {
        if (
          !(err instanceof RegridError) ||
          retry >= retries ||
          !retryable(err, route.method, keyed)
        )
          throw err;
        const waitMs = Math.min(
          err.code === 'network_error' ? 250 * 2 ** retry : (err.retryAfter ?? 1) * 1000,
          maxWaitMs,
        );
        await new Promise((r) => setTimeout(r, waitMs * (0.8 + Math.random() * 0.4)));
      }
    }
  };

  async function once<K extends OperationId>(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Reply<K>> {
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // The caller's own abort stays what it is; anything else is "no answer".
      if (signal?.aborted) throw err;
      throw RegridError.network(err);
    }
    const etag = res.headers.get('etag');
    if (res.status === 304) {
      return { status: 304, data: undefined, etag, replayed: false } as Reply<K>;
    }
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text();
    if (!res.ok) {
      const err = type.includes('json')
        ? new RegridError(JSON.parse(text) as ProblemBody, res.headers.get('retry-after'))
        : RegridError.unexpected(res.status, text);
      if (res.status === 401) options.onUnauthorized?.(err);
      throw err;
    }
    const data = type.includes('json') ? JSON.parse(text) : text;
    const replayed = res.headers.get('idempotent-replayed') === 'true';
    return { status: res.status, data, etag, replayed } as Reply<K>;
  }
}

/** Worth another try: the server said so (Retry-After), and a retry cannot apply a write twice. */
function retryable(err: RegridError, method: string, keyed: boolean): boolean {
  if (err.code === 'idempotency_in_flight') return err.retryAfter !== undefined;
  if (err.code === 'network_error') return method === 'GET' || keyed;
  if (err.status !== 503) return false;
  return err.code !== 'write_outcome_unknown' || method === 'GET' || keyed;
}
