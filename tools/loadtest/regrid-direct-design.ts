/**
 * regrid driven in-process: the real GridService (same write path, planners, CAS retries and key
 * engine as the HTTP server) on a Cassandra client of its own. No HTTP, no Redis: reads measure
 * the Cassandra read path the cache would fill from, so regrid and the naive table are compared on
 * storage alone.
 *
 * CAS retries are counted where they happen, at the store boundary: every conditional batch that
 * comes back not applied (or times out in Paxos) is one more attempt the writer has to make. The
 * same wrapper counts every conditional batch sent (CAS attempts per committed move).
 */
import { randomBytes } from 'node:crypto';
import type { Client, QueryOptions } from 'cassandra-driver';
import type { Config } from '../../src/config/config.js';
import { isDomainError } from '../../src/domain/errors.js';
import { IdGenerator } from '../../src/domain/ids.js';
import { cqlOf, type Cql } from '../../src/store/cassandra.js';
import { isCasTimeout } from '../../src/store/cql-errors.js';
import { TracingCql } from './cql-trace.js';
import { leaseWorker, type WorkerLease } from '../../src/store/worker-lease.js';
import { GridService } from '../../src/service/grid-service.js';
import type {
  CasAttempts,
  FailureKind,
  GridDesign,
  MixedOps,
  MoveOutcome,
  ReadCounts,
} from './design.js';

const READ_ALL_PAGE = 100;
const WHOLE_GRID = 1_000_000; // a "first page" this long is the whole grid

const SEED_RETRIES = 30;
const SEED_BACKOFF_MS = 200;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Reads retried while a ring loses or regains a node (bounded). */
async function retrying<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= SEED_RETRIES) throw err;
      await sleep(SEED_BACKOFF_MS * Math.min(attempt, 10));
    }
  }
}

/** Outcome known: these codes are returned before or instead of any write. */
const REJECTED = new Set([
  'invalid_request',
  'post_not_found',
  'post_not_on_grid',
  'anchor_not_on_grid',
  'post_pinned',
  'conflict',
  'contention',
  'rate_limited',
  'key_space_exhausted',
  'precondition_failed',
  'forbidden',
]);

const CONDITIONAL = /\sIF\s/i;

/** Wraps a Cql and counts conditional batches sent, and those that lost (or timed out). */
function countingCql(inner: Cql, onSent: () => void, onLost: () => void): Cql {
  return {
    execute: (q, p, o) => inner.execute(q, p, o),
    async batch(queries, options?: QueryOptions) {
      if (queries.some((s) => CONDITIONAL.test(s.query))) onSent();
      try {
        const rs = await inner.batch(queries, options);
        if (!rs.wasApplied()) onLost();
        return rs;
      } catch (err) {
        if (isCasTimeout(err)) onLost();
        throw err;
      }
    },
  };
}

export class RegridDirectDesign implements GridDesign {
  readonly name = 'regrid' as const;
  readonly transport = 'direct (in-process GridService)';
  readonly tables = ['grid_overrides', 'grid_posts'] as const;
  private lostCas = 0;
  private sentCas = 0;
  private readonly service: GridService;
  private readonly traced: TracingCql;
  private readonly tracedService: GridService;
  readonly mixed: MixedOps;

  private constructor(
    client: Client,
    config: Config,
    private readonly lease: WorkerLease,
  ) {
    const ids = new IdGenerator(lease.worker);
    const cursorSecret = config.CURSOR_SECRET ?? randomBytes(24).toString('hex');
    const cql = countingCql(
      cqlOf(client),
      () => this.sentCas++,
      () => this.lostCas++,
    );
    this.service = new GridService({ cql, config, ids, cursorSecret });
    // A second service over a tracing Cql, used only for the sampled traced reads.
    this.traced = new TracingCql(client);
    // Traced reads count only their own statements: no flag reads, no sampled checks.
    this.tracedService = new GridService({
      cql: this.traced,
      config: config,
      flags: this.service.flags,
      ids,
      cursorSecret,
    });
    this.mixed = directMixedOps(this.service);
  }

  /** Leases an ID worker number (released by close()) so IDs never collide with a server's. */
  static async create(client: Client, config: Config): Promise<RegridDirectDesign> {
    const lease = await leaseWorker(cqlOf(client));
    return new RegridDirectDesign(client, config, lease);
  }

  casRetries(): number {
    return this.lostCas;
  }

  casAttempts(): Promise<CasAttempts> {
    return Promise.resolve({ count: this.sentCas, source: 'conditional batches sent (driver)' });
  }

  isContention(err: unknown): boolean {
    return isDomainError(err) && err.code === 'contention';
  }

  /**
   * Creates the posts one by one. On a ring a node may be lost while seeding: a failed create is
   * retried (bounded), and since a create that timed out may still have committed, the grid is
   * read back to count what is really there before the next one, and at the end to return it.
   */
  async createGrid(profileId: bigint, posts: number): Promise<bigint[]> {
    let made = 0;
    for (let failures = 0; made < posts;) {
      try {
        await this.service.createPost(profileId, { caption: `load test post ${made}` });
        made++;
      } catch (err) {
        if (++failures > SEED_RETRIES || this.classifyFailure(err) === 'rejected') throw err;
        await sleep(SEED_BACKOFF_MS * Math.min(failures, 10));
        made = (await retrying(() => this.readAll(profileId))).length;
      }
    }
    // A fresh grid shows its posts newest first; creation order is the reverse.
    return (await retrying(() => this.readAll(profileId))).reverse();
  }

  async headVersion(profileId: bigint): Promise<bigint> {
    return (await retrying(() => this.service.reader.readHead(profileId))).version;
  }

  async move(profileId: bigint, postId: bigint, after: bigint | null): Promise<MoveOutcome> {
    const r = await this.service.move(profileId, postId, after);
    return { version: r.version, rowsWritten: 1 + r.relabelled, relabelled: r.relabelled };
  }

  /** The first page's order as the cache would fill it: head, overrides, grid_posts (no bodies). */
  async readFirstPage(profileId: bigint, limit: number): Promise<bigint[]> {
    return this.service.firstPageOrder(profileId, limit);
  }

  async traceFirstPage(profileId: bigint, limit: number): Promise<ReadCounts> {
    await this.tracedService.firstPageOrder(profileId, limit);
    return this.traced.tally();
  }

  /** The whole order the same way (no bodies): what the sampler times against the naive table. */
  readOrder(profileId: bigint): Promise<bigint[]> {
    return this.service.firstPageOrder(profileId, WHOLE_GRID);
  }

  /** The whole grid through the service's own paged read (cursors), as clients see it. */
  async readAll(profileId: bigint): Promise<bigint[]> {
    const out: bigint[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      const page = await this.service.pages.page({ profileId, limit: READ_ALL_PAGE, cursor });
      out.push(...page.entries.map((e) => e.postId));
      if (!page.nextCursor) return out;
      cursor = page.nextCursor;
    }
    throw new Error(`grid ${profileId} did not end after 10000 pages`);
  }

  classifyFailure(err: unknown): FailureKind {
    return isDomainError(err) && REJECTED.has(err.code) ? 'rejected' : 'uncertain';
  }

  async close(): Promise<void> {
    await this.lease.release();
  }
}

/** The mixed workload's writes straight through the service (the same calls the routes make). */
function directMixedOps(service: GridService): MixedOps {
  return {
    async create(profileId) {
      const out = await service.createPost(profileId, { caption: 'load test post (mixed)' });
      return { postId: out.value.postId, version: out.version };
    },
    remove: async (profileId, postId) => (await service.deletePost(profileId, postId)).version,
    archive: async (profileId, postId) => (await service.archivePost(profileId, postId)).version,
    unarchive: async (profileId, postId) =>
      (await service.unarchivePost(profileId, postId, 'previous')).version,
    setPins: async (profileId, pins) => (await service.setPins(profileId, pins)).version,
    async readOrder(profileId) {
      const o = await service.readOrder(profileId);
      return { pins: [...o.pinned], main: [...o.postIds], etag: o.etag };
    },
    patchOrder: async (profileId, etag, order) =>
      (await service.patchOrder(profileId, etag, { postIds: order })).version,
    failureCode: (err) =>
      isDomainError(err) ? err.code : err instanceof Error ? err.name : 'error',
  };
}
