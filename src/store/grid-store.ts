/**
 * Cassandra adapter for a profile's grid: the override partition (head + overrides, and the ONE
 * conditional batch every grid write goes through) and the time-ordered `grid_posts` partition.
 * Reads never load a whole `grid_posts` partition: it is streamed page by page (fetchSize +
 * pageState) and the consumer stops pulling once it has what it needs. The override partition is
 * read whole (it holds only moved/relabelled posts) and sorted into display order in memory.
 */
import type { types } from 'cassandra-driver';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import { compareDisplay, pagedIds, type PagedIds } from '../domain/merge.js';
import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';
import { isCasTimeout } from './cql-errors.js';
import { buildCasStatements, type GridMutation } from './grid-mutation.js';
import {
  COUNT_GRID_ROWS,
  EMPTY_HEAD,
  headOf,
  overrideOf,
  rowsPage,
  SELECT_GRID_ROW,
  SELECT_GRID_ROWS,
  SELECT_HEAD,
  SELECT_HEAD_AND_RING,
  SELECT_OVERRIDE_ROWS,
  SELECT_OVERRIDE_ROWS_AFTER,
  SELECT_OVERRIDES,
  SELECT_STATE,
  SELECT_WRITER_HEAD,
  STATE_FIRST_ROWS,
  STREAM,
} from './grid-rows.js';

/**
 * Which statics a head read brings besides version, generation, pins, count and membership
 * record: 'head' none (readers, the cache); 'writer' the home region and the undo ring (a write
 * turn: a move pushes onto the undo ring); 'keyed' those and the idempotency request ring (a turn
 * carrying an Idempotency-Key, the idempotency pre-check). A ring not read is absent from the head
 * (undefined), never an empty ring.
 */
export type HeadRead = 'head' | 'writer' | 'keyed';

const HEAD_QUERY: Record<HeadRead, string> = {
  head: SELECT_HEAD,
  writer: SELECT_WRITER_HEAD,
  keyed: SELECT_HEAD_AND_RING,
};

export interface OverridesSnapshot {
  /** The statics as seen by the same query that read the overrides. */
  readonly head: GridHead;
  /** Sorted in display order: key DESC, postId DESC. */
  readonly overrides: readonly OverrideRow[];
}

export type CasResult =
  | { readonly applied: true }
  | { readonly applied: false; readonly reason: 'version_changed'; readonly currentVersion: bigint }
  | { readonly applied: false; readonly reason: 'timeout' }; // outcome unknown: re-read

export type Direction = 'desc' | 'asc';

export interface StreamOptions {
  readonly direction?: Direction; // 'desc' (default): post_id <= from; 'asc': post_id >= from
  readonly from?: bigint;
  readonly pageSize?: number;
  /** Told the stamp of each page of rows read (grid-rows.ts `rowsPage`). */
  readonly onStamp?: (stamp: bigint | null) => void;
  /** The caller's statement scope (statement-scope.ts), named by every page's statement. */
  readonly scope?: StatementScope | undefined;
}

/** One page of a `grid_posts` stream: its post IDs in stream order, and whether it was the last. */
export interface IdPage {
  readonly ids: readonly bigint[];
  readonly last: boolean;
}

export { EMPTY_HEAD, type GridHead, type OverrideRow };

export class GridStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  private readOpts(extra: CqlOptions = {}): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, ...extra };
  }

  /** The static head (one row), with the statics `read` names (HeadRead). */
  async readHead(
    profileId: bigint,
    options: CqlOptions = {},
    read: HeadRead = 'head',
  ): Promise<GridHead> {
    const rs = await this.db.execute(HEAD_QUERY[read], [profileId], this.readOpts(options));
    return headOf(rs.first());
  }

  /**
   * Every override (paged through) plus the statics of the same state. The head (with the statics
   * `read` names) and the rows go out together; each row carries the static version, so the pair is one state
   * exactly when every page saw the head's version (a commit in between changes both, atomically
   * per replica). Two misses in a row (a busy grid) fall back to one query that reads the statics
   * with every row.
   */
  async readOverrides(
    profileId: bigint,
    options: CqlOptions = {},
    read: HeadRead = 'head',
    pageSize = 1000,
  ): Promise<OverridesSnapshot> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const [head, rows] = await Promise.all([
        this.readHead(profileId, options, read),
        this.readOverrideRows(profileId, options, pageSize),
      ]);
      if (rows.versions.every((v) => v === head.version)) {
        return { head, overrides: rows.overrides };
      }
    }
    const { first, overrides } = await this.readOverrideRows(
      profileId,
      options,
      pageSize,
      SELECT_OVERRIDES,
    );
    return { head: first ? headOf(first) : EMPTY_HEAD, overrides };
  }

  /**
   * A page read's state: the head (without the writer's rings) and every override. The head
   * rides with the first rows in one statement; a grid with more is read on by post_id, each
   * row with its static version, and the pair is one state when every row shows the head's (a
   * commit in between: read again, then `readOverrides`).
   */
  async readState(profileId: bigint, options: CqlOptions = {}): Promise<OverridesSnapshot> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const rs = await this.db.execute(SELECT_STATE, [profileId], this.readOpts(options));
      const head = headOf(rs.first());
      const overrides = rs.rows.flatMap((r) => overrideOf(r) ?? []);
      const last = overrides[overrides.length - 1];
      if (rs.rowLength < STATE_FIRST_ROWS || !last) {
        return { head, overrides: overrides.sort((a, b) => compareDisplay(b, a)) };
      }
      const more = await this.readOverrideRows(
        profileId,
        options,
        1000,
        SELECT_OVERRIDE_ROWS_AFTER,
        [profileId, last.postId],
      );
      if (!more.first || more.versions.every((v) => v === head.version)) {
        const all = [...overrides, ...more.overrides];
        return { head, overrides: all.sort((a, b) => compareDisplay(b, a)) };
      }
    }
    return this.readOverrides(profileId, options);
  }

  /**
   * The override rows (sorted), the static version every row was read with, and the first row
   * (whose statics a query selecting them all carries).
   */
  private async readOverrideRows(
    profileId: bigint,
    options: CqlOptions,
    pageSize: number,
    query = SELECT_OVERRIDE_ROWS,
    params: unknown[] = [profileId],
  ) {
    const overrides: OverrideRow[] = [];
    const versions = new Set<bigint>();
    let first: types.Row | undefined;
    for await (const row of this.pages(query, params, pageSize, options)) {
      first ??= row;
      versions.add((row.get('version') as bigint | null) ?? 0n);
      const o = overrideOf(row);
      if (o) overrides.push(o);
    }
    overrides.sort((a, b) => compareDisplay(b, a));
    // No row at all: the partition did not exist yet (its statics come with every row), version 0.
    return { overrides, versions: first ? [...versions] : [0n], first };
  }

  /** Streams the time-ordered post IDs of a grid, one Cassandra page at a time. */
  streamChronological(profileId: bigint, options: StreamOptions = {}): PagedIds {
    const q = STREAM[options.direction ?? 'desc'];
    const [query, params] =
      options.from === undefined ? [q.all, [profileId]] : [q.from, [profileId, options.from]];
    const size = options.pageSize ?? 200;
    const pages = () => this.pagesOf(query, params, size, options.scope);
    return pagedIds(async function* () {
      for await (const page of pages()) {
        if (page.stamp !== undefined) options.onStamp?.(page.stamp);
        yield page.ids;
      }
    });
  }

  /** The post IDs of `grid_posts` from `from` (inclusive) in `direction`, page by page. */
  idPages(
    profileId: bigint,
    direction: Direction,
    from: bigint,
    pageSize: number,
  ): AsyncGenerator<IdPage, void, undefined> {
    return this.pagesOf(STREAM[direction].from, [profileId, from], pageSize);
  }

  /** Whether the post has a row in the profile's time-ordered grid. */
  async hasGridRow(profileId: bigint, postId: bigint, scope?: StatementScope): Promise<boolean> {
    const rs = await this.db.execute(
      SELECT_GRID_ROW,
      [profileId, postId],
      this.readOpts({ scope }),
    );
    return rs.rowLength > 0;
  }

  /** Which of `postIds` have a row in the grid (one statement for a few posts, e.g. a move's two). */
  async gridRowsAmong(profileId: bigint, postIds: readonly bigint[]): Promise<Set<bigint>> {
    if (postIds.length === 0) return new Set();
    if (postIds.length === 1) {
      return (await this.hasGridRow(profileId, postIds[0]!)) ? new Set(postIds) : new Set();
    }
    const rs = await this.db.execute(SELECT_GRID_ROWS, [profileId, postIds], this.readOpts());
    return new Set(rs.rows.map((r) => r.get('post_id') as bigint));
  }

  /**
   * Counts the grid's time-ordered rows (a whole-partition scan): only for a grid whose
   * `post_count` is absent (a grid that predates the column), never on a read path.
   */
  async countGridRows(profileId: bigint): Promise<bigint> {
    const rs = await this.db.execute(COUNT_GRID_ROWS, [profileId], this.readOpts());
    return BigInt((rs.first()?.get('count') as bigint | number | null) ?? 0);
  }

  /**
   * THE grid write: one conditional batch on the override partition, applied only if the static
   * version still equals `expected` (0 = absent), setting it to `next` together with `mutation`.
   * Paxos at the serial consistency, commit at the configured consistency. A batch that sets the
   * home region (a claim or a re-home, docs/regions.md) runs its Paxos at `rehome` (SERIAL by
   * default): it must be serialized with writes from every region, not just this one.
   */
  async casGrid(
    profileId: bigint,
    expected: bigint,
    next: bigint,
    mutation: GridMutation,
    scope: StatementScope | undefined,
  ): Promise<CasResult> {
    const statements = buildCasStatements(profileId, expected, next, mutation);
    let rs: types.ResultSet;
    try {
      rs = await this.db.batch(statements, {
        prepare: true,
        consistency: this.consistency.commit,
        serialConsistency:
          mutation.statics?.homeRegion !== undefined
            ? (this.consistency.rehome ?? this.consistency.serial)
            : this.consistency.serial,
        scope,
      });
    } catch (err) {
      if (isCasTimeout(err)) return { applied: false, reason: 'timeout' };
      throw err;
    }
    if (rs.wasApplied()) return { applied: true };
    const current = rs.rows.find((r) => r.keys().includes('version'))?.get('version') as
      bigint | null | undefined;
    return { applied: false, reason: 'version_changed', currentVersion: current ?? 0n };
  }

  /** The post IDs of a grid_posts query, page by page. */
  private async *pagesOf(
    query: string,
    params: unknown[],
    pageSize: number,
    scope?: StatementScope,
  ): AsyncGenerator<IdPage & { stamp?: bigint | null }, void, undefined> {
    let pageState: string | undefined;
    do {
      const rs = await this.db.execute(
        query,
        params,
        this.readOpts({ fetchSize: pageSize, scope, ...(pageState ? { pageState } : {}) }),
      );
      pageState = rs.pageState ?? undefined;
      yield { ...rowsPage(rs.rows), last: !pageState };
    } while (pageState);
  }

  /** Rows of a query, fetched `pageSize` at a time; stops fetching when the consumer stops. */
  private async *pages(
    query: string,
    params: unknown[],
    pageSize: number,
    options: CqlOptions = {},
  ): AsyncGenerator<types.Row, void, undefined> {
    let pageState: string | undefined;
    do {
      const rs = await this.db.execute(
        query,
        params,
        this.readOpts({ ...options, fetchSize: pageSize, ...(pageState ? { pageState } : {}) }),
      );
      yield* rs.rows;
      pageState = rs.pageState ?? undefined;
    } while (pageState);
  }
}
