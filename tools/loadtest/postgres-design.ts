/**
 * The seed's own design on PostgreSQL (design article §3.3, §5.1, §5.2), driven by the load tester
 * as a peer of regrid: one `grid_entry` row per post with a nullable sort_key override, the
 * display index on (profile_id, coalesce(sort_key, post_id) DESC, post_id DESC), and a move that
 * runs in one READ COMMITTED transaction which first locks and bumps the profile's version row in
 * `grid_order` (INSERT … ON CONFLICT DO UPDATE … RETURNING), then reads the anchor's key and the
 * next key below it, writes the midpoint, and — when no midpoint is left — reads a few dozen rows
 * on each side and relabels them in the same transaction.
 *
 * Writes to one profile are serialized by the version row lock (they wait, never retry): no CAS
 * count. Keys come from regrid's pure key engine (src/domain/keys.ts), as in naive-design.ts.
 *
 * PostgreSQL writes no tombstones: an UPDATE leaves a dead tuple (and, since sort_key is in the
 * display index, a new index entry: no HOT update) that VACUUM reclaims. The traced reads report
 * the rows read and 0 tombstone cells; `storeStats` reports pg_stat_user_tables after the run.
 */
import type pg from 'pg';
import { IdGenerator, MAX_WORKER } from '../../src/domain/ids.js';
import { placeInSlice, type Keyed, type Slice } from '../../src/domain/keys.js';
import type { CeilingRequest, FailureKind, GridDesign, MoveOutcome, ReadCounts } from './design.js';
import { measurePostgresFloor } from './postgres-ceiling.js';
import { openPool, resetSchema } from './postgres-schema.js';
import { SQL } from './postgres-sql.js';

const NO_PINS: bigint[] = []; // the load test pins nothing (an empty array, never NULL: §3.3)
const RELABEL_WINDOW = 32; // "a few dozen rows on each side of the anchor"; doubled if needed
const MAX_WIDENINGS = 10; // 32 · 2^9 rows per side: more than any load-test grid
const STATS_FLUSH_MS = 300; // time for idle backends to flush their statistics

/** The move was refused before anything committed (the article's 400 / 404 / 409). */
class MoveRefused extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'MoveRefused';
  }
}

/** COMMIT itself failed: the move may or may not have applied. */
class CommitOutcomeUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super(`postgres COMMIT failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'CommitOutcomeUnknown';
  }
}

type Row = { post_id: bigint; k: bigint };
const keyed = (r: Row): Keyed => ({ postId: r.post_id, key: r.k });

export interface PostgresDesignOptions {
  readonly url: string;
  /** Connections: the workload's concurrency plus the sampler. */
  readonly poolSize: number;
  /** Schema holding the tables, dropped and rebuilt on create. */
  readonly schema: string;
}

export class PostgresDesign implements GridDesign {
  readonly name = 'postgres' as const;
  readonly transport = 'direct (PostgreSQL, seed §3.3)';
  /** No Cassandra tables: tombstone accounting has nothing to trace for this design. */
  readonly tables = [] as const;
  // Post IDs and the fresh-ID ceiling for moves to the top, as in the naive comparator.
  private readonly ids = new IdGenerator(MAX_WORKER);

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  /** Connects (throws DesignUnavailable when nothing answers) and rebuilds the schema. */
  static async create(o: PostgresDesignOptions): Promise<PostgresDesign> {
    const pool = await openPool(o.url, o.poolSize, o.schema);
    await resetSchema(pool, o.schema);
    return new PostgresDesign(pool, o.schema);
  }

  /** Each post in its own transaction, version row first, as every grid write (§3.3). */
  async createGrid(profileId: bigint, posts: number): Promise<bigint[]> {
    const out: bigint[] = [];
    for (let i = 0; i < posts; i++) {
      const postId = this.ids.next();
      // A fresh grid has no overrides, so a new ID is always above the top key (§3.3).
      await this.transaction(async (c) => {
        await c.query(SQL.bump([profileId]));
        await c.query(SQL.insertPost([profileId, postId]));
      });
      out.push(postId);
    }
    return out;
  }

  async move(profileId: bigint, postId: bigint, after: bigint | null): Promise<MoveOutcome> {
    if (after === postId) throw new MoveRefused(400, 'after equals post_id');
    return this.transaction(async (c) => {
      const version = (await c.query<{ version: bigint }>(SQL.bump([profileId]))).rows[0]!.version;
      let anchor: Keyed | null = null;
      if (after !== null) {
        const a = await c.query<{ k: bigint }>(SQL.anchorKey([profileId, after]));
        if (a.rowCount === 0) throw new MoveRefused(409, `anchor ${after} is not on the grid`);
        anchor = { postId: after, key: a.rows[0]!.k };
      }
      for (let i = 0, window = 1; i <= MAX_WIDENINGS; i++) {
        const slice = await this.readSlice(c, profileId, postId, anchor, window);
        const placed = placeInSlice(slice, [postId], this.ids.next());
        if (placed.kind === 'need_more') {
          window = window === 1 ? RELABEL_WINDOW : window * 2;
          continue;
        }
        const mine = placed.writes.find((w) => w.postId === postId)!;
        const others = placed.writes.filter((w) => w.postId !== postId);
        const moved = await c.query(SQL.moveRow([profileId, postId, mine.key, version]));
        // Rolling back also undoes the version bump.
        if (moved.rowCount !== 1) throw new MoveRefused(404, `post ${postId} is not on the grid`);
        if (others.length > 0) {
          const ids = others.map((w) => w.postId);
          await c.query(SQL.relabel([profileId, ids, others.map((w) => w.key)]));
        }
        // The version row, the moved row and the relabelled rows.
        return { version, rowsWritten: 1 + placed.writes.length, relabelled: placed.relabelled };
      }
      throw new Error(`postgres: no room for post ${postId} even after widening the window`);
    });
  }

  /**
   * The ascending slice around the gap below the anchor (or below the top), without the moved
   * post: with `window` 1 these are exactly the article's reads (the anchor's key, read above,
   * and the next key); wider windows are the relabel's neighbours on both sides.
   */
  private async readSlice(
    c: pg.PoolClient,
    profileId: bigint,
    postId: bigint,
    anchor: Keyed | null,
    window: number,
  ): Promise<Slice> {
    if (anchor === null) {
      const top = await c.query<Row>(SQL.top([profileId, postId, NO_PINS, window]));
      const entries = top.rows.map(keyed).reverse();
      return {
        entries,
        gap: entries.length,
        reachesBottom: top.rows.length < window,
        reachesTop: true,
      };
    }
    const at = [profileId, postId, NO_PINS, anchor.key, anchor.postId, window];
    const below = (await c.query<Row>(SQL.below(at))).rows;
    const above =
      window === 1
        ? [{ post_id: anchor.postId, k: anchor.key }]
        : (await c.query<Row>(SQL.atOrAbove(at))).rows;
    return {
      entries: [...below.map(keyed).reverse(), ...above.map(keyed)],
      gap: below.length,
      reachesBottom: below.length < window,
      reachesTop: above.length < window,
    };
  }

  private async transaction<T>(body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let broken = false;
    try {
      await c.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      let result: T;
      try {
        result = await body(c);
      } catch (err) {
        await c.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      }
      try {
        await c.query('COMMIT');
      } catch (err) {
        broken = true;
        throw new CommitOutcomeUnknown(err);
      }
      return result;
    } finally {
      c.release(broken);
    }
  }

  async readFirstPage(profileId: bigint, limit: number): Promise<bigint[]> {
    const rs = await this.pool.query<Row>(SQL.firstPage([profileId, NO_PINS, limit]));
    return rs.rows.map((r) => r.post_id);
  }

  /** PostgreSQL has no tombstones (dead tuples instead): the rows the first page read, and 0. */
  async traceFirstPage(profileId: bigint, limit: number): Promise<ReadCounts> {
    const rs = await this.pool.query<Row>(SQL.firstPage([profileId, NO_PINS, limit]));
    return { liveRows: rs.rowCount ?? rs.rows.length, tombstoneCells: 0 };
  }

  /** The whole grid's live rows (entries + version row); what a traced partition read counts. */
  async traceWhole(profileId: bigint): Promise<ReadCounts> {
    const rs = await this.pool.query<{ n: bigint }>(SQL.liveRows([profileId]));
    return { liveRows: Number(rs.rows[0]!.n), tombstoneCells: 0 };
  }

  readOrder(profileId: bigint): Promise<bigint[]> {
    return this.readAll(profileId);
  }

  async readAll(profileId: bigint): Promise<bigint[]> {
    const rs = await this.pool.query<{ post_id: bigint }>(SQL.all([profileId]));
    return rs.rows.map((r) => r.post_id);
  }

  classifyFailure(err: unknown): FailureKind {
    // Anything before COMMIT rolled back; only a failed COMMIT leaves the outcome open.
    return err instanceof CommitOutcomeUnknown ? 'uncertain' : 'rejected';
  }

  /**
   * pg_stat_user_tables for the design's tables (cumulative since the schema was rebuilt):
   * updates, how many were HOT, live and dead tuples, autovacuum runs. Counters are flushed by
   * backends lazily (up to ~10 s late), so every pooled connection is told to flush first.
   */
  async storeStats(): Promise<Record<string, Record<string, number>>> {
    const clients = await Promise.all(
      Array.from({ length: this.pool.totalCount }, () => this.pool.connect()),
    );
    // Takes effect when each backend goes idle after this statement.
    await Promise.all(clients.map((c) => c.query('SELECT pg_stat_force_next_flush()')));
    for (const c of clients) c.release();
    await new Promise((r) => setTimeout(r, STATS_FLUSH_MS));
    const rs = await this.pool.query<Record<string, bigint | string>>(
      `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_live_tup, n_dead_tup, autovacuum_count
       FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`,
      [this.schema],
    );
    const out: Record<string, Record<string, number>> = {};
    for (const { relname, ...counts } of rs.rows) {
      out[String(relname)] = Object.fromEntries(
        Object.entries(counts).map(([k, v]) => [k, Number(v)]),
      );
    }
    return out;
  }

  /** PostgreSQL's own floor (postgres-ceiling.ts), on fresh profiles. */
  storeCeiling(o: CeilingRequest) {
    const ids = Array.from({ length: o.concurrency }, () => this.ids.next());
    return measurePostgresFloor(this.pool, ids, o);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
