/**
 * The editor's HTTP client: fetch with the bearer token, problem+json turned into ApiError with
 * the server's stable `code`, a fresh Idempotency-Key per write, and a bounded retry with the SAME
 * key for answers that say "try again" (503 + Retry-After, 409 idempotency_in_flight, network
 * errors), which the server then applies at most once (docs/idempotency.md).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface Post {
  readonly id: string;
  readonly caption: string | null;
  readonly media_url: string | null;
  readonly created_at: string;
}

export interface GridPage {
  readonly items: Post[];
  readonly next_cursor: string | null;
  readonly grid_version: string;
  readonly grid_changed: boolean;
}

export interface OrderResource {
  readonly post_ids: string[];
  readonly pinned: string[];
  readonly etag: string;
}

/** crypto.randomUUID needs a secure context; getRandomValues works on any origin. */
export function newKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

const RETRIES = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Api {
  constructor(
    private readonly token: () => string | null,
    /** Called on a 401: the token expired or the server's secret changed (a restart in dev). */
    private readonly onUnauthorized: () => void = () => {},
  ) {}

  async request<T>(
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ body: T; headers: Headers }> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    // Only writes carrying a key are retried: without one a retry could apply a move twice.
    const retriable = method === 'GET' || headers['idempotency-key'] !== undefined;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(path, {
          method,
          headers,
          ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
        });
      } catch (err) {
        if (retriable && attempt < RETRIES) {
          await sleep(300 * attempt);
          continue;
        }
        throw new ApiError(0, 'network', `The server did not answer (${String(err)}).`);
      }
      if (res.ok || res.status === 304) {
        const body = res.status === 204 || res.status === 304 ? null : await res.json();
        return { body: body as T, headers: res.headers };
      }
      if (res.status === 401) this.onUnauthorized();
      const problem = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      const code = typeof problem.code === 'string' ? problem.code : `http_${res.status}`;
      const again = res.status === 503 || code === 'idempotency_in_flight';
      if (retriable && again && attempt < RETRIES) {
        const after = Number(res.headers.get('retry-after') ?? '1');
        await sleep(Math.min(5, Number.isFinite(after) ? after : 1) * 1000);
        continue;
      }
      const detail = typeof problem.detail === 'string' ? problem.detail : '';
      const title = typeof problem.title === 'string' ? problem.title : res.statusText;
      throw new ApiError(res.status, code, detail ? `${title}: ${detail}` : title, problem);
    }
  }

  /** A write with its own Idempotency-Key (retries reuse it). */
  write<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request<T>(method, path, {
      ...(body !== undefined ? { body } : {}),
      headers: { 'idempotency-key': newKey(), ...headers },
    }).then((r) => r.body);
  }

  async page(profileId: string, q: { cursor?: string | null; limit: number; minVersion?: string }) {
    const p = new URLSearchParams({ limit: String(q.limit) });
    if (q.cursor) p.set('cursor', q.cursor);
    if (q.minVersion) p.set('min_version', q.minVersion);
    return (await this.request<GridPage>('GET', `/v1/profiles/${profileId}/grid?${p}`)).body;
  }

  async order(): Promise<OrderResource> {
    const r = await this.request<Omit<OrderResource, 'etag'>>('GET', '/v1/me/grid/order');
    return { ...r.body, etag: r.headers.get('etag') ?? '' };
  }
}
