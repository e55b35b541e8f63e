/**
 * The production workload's client: one `Send` (a request, its status, body and ETag) over a
 * real loopback connection pool (the HTTP run) or the app's own `request()` in this process (the
 * direct run: the same routes and middleware, no socket), and the load tester's GridDesign over
 * it, so the writer grids are driven by the mixed workload (mixed-step.ts) and judged by the
 * existing checker (verify.ts) exactly as `--mix` runs are.
 */
import { Pool } from 'undici';
import type { Hono } from 'hono';
import { issueToken } from '../../../src/http/auth.js';
import type { AppEnv } from '../../../src/http/env.js';
import type { FailureKind, GridDesign, MoveOutcome, ReadCounts } from '../design.js';
import { HttpFailure, httpMixedOps, type Call } from '../regrid-http-design.js';

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly etag: string | undefined;
  /** Seconds, from a 503's Retry-After. */
  readonly retryAfter?: string | undefined;
}
export type Send = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) => Promise<Answer>;

const TIMEOUT_MS = 30_000;
const READ_ALL_PAGE = 100;

export function poolSend(
  base: string,
  connections: number,
): { send: Send; close: () => Promise<void> } {
  const pool = new Pool(base, { connections, pipelining: 1 });
  const send: Send = async (method, path, headers, body) => {
    const res = await pool.request({
      path,
      method: method as 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const etag = res.headers.etag;
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      text: await res.body.text(),
      etag: typeof etag === 'string' ? etag : undefined,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    };
  };
  return { send, close: () => pool.close() };
}

export function appSend(app: Hono<AppEnv>): Send {
  return async (method, path, headers, body) => {
    const res = await app.request(`http://regrid.local${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return {
      status: res.status,
      text: await res.text(),
      etag: res.headers.get('etag') ?? undefined,
      retryAfter: res.headers.get('retry-after') ?? undefined,
    };
  };
}

/** The writer grids' design: user tokens per profile, every call through `send`. */
export class SendDesign implements GridDesign {
  readonly name = 'regrid' as const;
  readonly tables = ['grid_overrides', 'grid_posts'] as const;
  private readonly tokens = new Map<bigint, Promise<string>>();
  readonly mixed;

  constructor(
    readonly transport: string,
    private readonly send: Send,
    private readonly secret: string,
  ) {
    this.mixed = httpMixedOps(this.call);
  }

  token(profileId: bigint): Promise<string> {
    let t = this.tokens.get(profileId);
    if (!t) this.tokens.set(profileId, (t = issueToken(this.secret, profileId, 24 * 3600)));
    return t;
  }

  readonly call: Call = async <T>(
    method: string,
    path: string,
    profileId: bigint,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<T> => {
    const headers: Record<string, string> = {
      ...extra,
      authorization: `Bearer ${await this.token(profileId)}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(
      method,
      path,
      headers,
      body === undefined ? undefined : JSON.stringify(body),
    );
    if (res.status < 200 || res.status > 299) throw new HttpFailure(res.status, res.text);
    return JSON.parse(res.text) as T;
  };

  async createGrid(profileId: bigint, posts: number): Promise<bigint[]> {
    const out: bigint[] = [];
    for (let i = 0; i < posts; i++) {
      const r = await this.call<{ post: { id: string } }>('POST', '/v1/me/posts', profileId, {
        caption: `production-shaped writer post ${i}`,
      });
      out.push(BigInt(r.post.id));
    }
    return out;
  }

  async move(profileId: bigint, postId: bigint, after: bigint | null): Promise<MoveOutcome> {
    const r = await this.call<{ grid_version: string }>('POST', '/v1/me/grid/moves', profileId, {
      post_id: postId.toString(),
      after: after === null ? null : after.toString(),
    });
    return { version: BigInt(r.grid_version), rowsWritten: null, relabelled: null };
  }

  async readFirstPage(profileId: bigint, limit: number): Promise<bigint[]> {
    const page = await this.call<{ items: Array<{ id: string }> }>(
      'GET',
      `/v1/profiles/${profileId}/grid?limit=${limit}`,
      profileId,
    );
    return page.items.map((i) => BigInt(i.id));
  }

  traceFirstPage(): Promise<ReadCounts> {
    throw new Error('the production workload traces no reads');
  }

  readOrder(profileId: bigint): Promise<bigint[]> {
    return this.readAll(profileId);
  }

  async readAll(profileId: bigint): Promise<bigint[]> {
    const out: bigint[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10_000; pages++) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: { items: Array<{ id: string }>; next_cursor: string | null } = await this.call(
        'GET',
        `/v1/profiles/${profileId}/grid?limit=${READ_ALL_PAGE}${q}`,
        profileId,
      );
      out.push(...page.items.map((i) => BigInt(i.id)));
      cursor = page.next_cursor;
      if (!cursor) return out;
    }
    throw new Error(`grid ${profileId} did not end after 10000 pages`);
  }

  isContention(err: unknown): boolean {
    return err instanceof HttpFailure && err.status === 503 && err.body.includes('contention');
  }

  classifyFailure(err: unknown): FailureKind {
    if (!(err instanceof HttpFailure)) return 'uncertain';
    if (err.status >= 400 && err.status < 500 && err.status !== 408) return 'rejected';
    if (err.status === 503 && err.body.includes('contention')) return 'rejected';
    return 'uncertain';
  }

  async close(): Promise<void> {}
}
