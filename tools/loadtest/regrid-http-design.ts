/**
 * regrid driven over HTTP: a running server (`npm start`) on a loopback URL, with one HS256 token
 * per profile minted from the server's secret (`sub` = profile ID). Moves, creates and reads go
 * through the public API; only the sampled *traced* first-page read runs in-process, through the
 * same read path over a tracing Cassandra session, because a server's reads cannot be traced from
 * outside.
 *
 * What the API does not expose is reported as unknown: CAS retries, rows written and relabels.
 * CAS attempts are what the server itself reports on /metrics (`regrid_cas_attempts`, op move).
 */
import type { Client } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { issueToken } from '../../src/http/auth.js';
import { flagsOf } from '../../src/service/flags.js';
import { GridService } from '../../src/service/grid-service.js';
import { cqlOf } from '../../src/store/cassandra.js';
import { TracingCql } from './cql-trace.js';
import { closeHttpPools, httpCall } from './http-call.js';
import type {
  CasAttempts,
  FailureKind,
  GridDesign,
  MixedOps,
  MoveOutcome,
  ReadCounts,
} from './design.js';

const TIMEOUT_MS = 30_000;
const METRIC = 'regrid_cas_attempts';
const MOVE_ATTEMPTS = new RegExp(`^${METRIC}_sum\\{[^}]*op="move"[^}]*\\} ([0-9.e+]+)$`, 'm');

/** The server's own count of CAS attempts by moves, from its Prometheus text; null: not there. */
export function moveAttemptsOf(metricsText: string): number | null {
  const m = MOVE_ATTEMPTS.exec(metricsText);
  if (m) return Number(m[1]);
  // The histogram exists but has seen no move yet.
  return metricsText.includes(`# TYPE ${METRIC} histogram`) ? 0 : null;
}
const READ_ALL_PAGE = 100;

/** A non-2xx answer; `type` is the problem+json type when the server sent one. */
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 200)}`);
    this.name = 'HttpFailure';
  }
}

interface GridPageBody {
  items: Array<{ id: string }>;
  next_cursor: string | null;
  grid_version: string;
}

export class RegridHttpDesign implements GridDesign {
  readonly name = 'regrid' as const;
  readonly transport: string;
  readonly tables = ['grid_overrides', 'grid_posts'] as const;
  private readonly tokens = new Map<bigint, Promise<string>>();
  private readonly traced: TracingCql;
  private readonly tracedService: GridService;
  readonly mixed: MixedOps = httpMixedOps((method, path, profileId, body, extra) =>
    this.call(method, path, profileId, body, extra),
  );

  private constructor(
    private readonly base: string,
    private readonly secret: string,
    client: Client,
    config: Config,
  ) {
    this.transport = `http ${base}`;
    this.traced = new TracingCql(client);
    // Traced reads count only their own statements: no flag reads, no sampled checks.
    this.tracedService = new GridService({
      cql: this.traced,
      config: config,
      flags: flagsOf(cqlOf(client), config),
      ids: {
        next: () => {
          throw new Error('the HTTP design never issues IDs in-process');
        },
      },
      cursorSecret: 'unused-by-first-page-reads',
    });
  }

  /** Checks that the server answers before any work is done. */
  static async create(
    target: string,
    secret: string,
    client: Client,
    config: Config,
  ): Promise<RegridHttpDesign> {
    const base = target.replace(/\/+$/, '');
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(
      (e: unknown) => {
        throw new Error(`regrid does not answer at ${base}: ${(e as Error).message}`);
      },
    );
    if (!res.ok) throw new Error(`regrid at ${base} is not healthy (HTTP ${res.status})`);
    return new RegridHttpDesign(base, secret, client, config);
  }

  private token(profileId: bigint): Promise<string> {
    let t = this.tokens.get(profileId);
    if (!t) {
      t = issueToken(this.secret, profileId, 24 * 3600);
      this.tokens.set(profileId, t);
    }
    return t;
  }

  private async call<T>(
    method: string,
    path: string,
    profileId: bigint,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<T> {
    const headers: Record<string, string> = {
      ...extra,
      authorization: `Bearer ${await this.token(profileId)}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const res = await httpCall(`${this.base}${path}`, method, headers, payload, TIMEOUT_MS);
    const { text } = res;
    if (res.status < 200 || res.status > 299) throw new HttpFailure(res.status, text);
    return JSON.parse(text) as T;
  }

  async createGrid(profileId: bigint, posts: number): Promise<bigint[]> {
    const out: bigint[] = [];
    for (let i = 0; i < posts; i++) {
      const r = await this.call<{ post: { id: string } }>('POST', '/v1/me/posts', profileId, {
        caption: `load test post ${i}`,
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
    const page = await this.call<GridPageBody>(
      'GET',
      `/v1/profiles/${profileId}/grid?limit=${limit}`,
      profileId,
    );
    return page.items.map((i) => BigInt(i.id));
  }

  async traceFirstPage(profileId: bigint, limit: number): Promise<ReadCounts> {
    await this.tracedService.firstPageOrder(profileId, limit);
    return this.traced.tally();
  }

  /** Over HTTP the whole order is only available page by page, bodies included. */
  readOrder(profileId: bigint): Promise<bigint[]> {
    return this.readAll(profileId);
  }

  async readAll(profileId: bigint): Promise<bigint[]> {
    const out: bigint[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10_000; pages++) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: GridPageBody = await this.call<GridPageBody>(
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

  async casAttempts(): Promise<CasAttempts> {
    const source = `server /metrics: ${METRIC}_sum{op="move"}`;
    try {
      const res = await fetch(`${this.base}/metrics`, { signal: AbortSignal.timeout(5_000) });
      const count = res.ok ? moveAttemptsOf(await res.text()) : null;
      if (count !== null) return { count, source };
      return { count: null, source: `n/a: ${this.base}/metrics has no ${METRIC}` };
    } catch (err) {
      return { count: null, source: `n/a: ${this.base}/metrics: ${(err as Error).message}` };
    }
  }

  isContention(err: unknown): boolean {
    return err instanceof HttpFailure && err.status === 503 && err.body.includes('contention');
  }

  /** 4xx and 503 contention never changed the grid; timeouts and other 5xx may have. */
  classifyFailure(err: unknown): FailureKind {
    if (!(err instanceof HttpFailure)) return 'uncertain';
    if (err.status >= 400 && err.status < 500 && err.status !== 408) return 'rejected';
    if (err.status === 503 && err.body.includes('contention')) return 'rejected';
    return 'uncertain';
  }

  async close(): Promise<void> {
    await closeHttpPools();
  }
}

export type Call = <T>(
  method: string,
  path: string,
  profileId: bigint,
  body?: unknown,
  extra?: Record<string, string>,
) => Promise<T>;
type Versioned = { grid_version: string };

/**
 * The mixed workload's writes through the public API. This client does not see response
 * headers, so a batch order sends `If-Match: *`: the service still checks, inside the
 * compare-and-set, that the order is a permutation of the grid's main order at that version.
 */
export function httpMixedOps(call: Call): MixedOps {
  const version = (r: Versioned) => BigInt(r.grid_version);
  const post = (id: bigint) => `/v1/me/posts/${id}`;
  return {
    async create(profileId) {
      const r = await call<Versioned & { post: { id: string } }>(
        'POST',
        '/v1/me/posts',
        profileId,
        {
          caption: 'load test post (mixed)',
        },
      );
      return { postId: BigInt(r.post.id), version: version(r) };
    },
    remove: async (p, id) => version(await call<Versioned>('DELETE', post(id), p)),
    archive: async (p, id) => version(await call<Versioned>('POST', `${post(id)}/archive`, p, {})),
    unarchive: async (p, id) =>
      version(await call<Versioned>('POST', `${post(id)}/unarchive`, p, { position: 'previous' })),
    setPins: async (p, pins) =>
      version(await call<Versioned>('PUT', '/v1/me/grid/pins', p, { post_ids: pins.map(String) })),
    async readOrder(p) {
      const r = await call<{ post_ids: string[]; pinned: string[] }>('GET', '/v1/me/grid/order', p);
      return { pins: r.pinned.map(BigInt), main: r.post_ids.map(BigInt), etag: '*' };
    },
    patchOrder: async (p, etag, order) =>
      version(
        await call<Versioned>(
          'PATCH',
          '/v1/me/grid/order',
          p,
          { post_ids: order.map(String) },
          { 'if-match': etag },
        ),
      ),
    failureCode(err) {
      if (!(err instanceof HttpFailure)) return err instanceof Error ? err.name : 'error';
      const code = /"code"\s*:\s*"([a-z_]+)"/.exec(err.body)?.[1];
      const type = /problems\/([a-z_]+)/.exec(err.body)?.[1];
      return `http_${err.status}${code || type ? `_${code ?? type}` : ''}`;
    },
  };
}
