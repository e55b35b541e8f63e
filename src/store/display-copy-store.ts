/**
 * `grid_display_copy` (cql/016_display_copy.cql): the display order of one grid state, for
 * profiles with many overrides. Written once by the copy builder (service/read/copy-builder.ts),
 * read by seeking to a position. A read trusts a copy only when its `complete` cell is set and
 * it was built less than `trustForMs` ago (rows carry the table's TTL; an old copy is rebuilt
 * before its rows could start to expire under a reader).
 */
import type { GridVersion } from '../domain/grid-version.js';
import type { GridEntry, GridPosition } from '../domain/merge.js';
import type { Consistency, Cql, CqlOptions } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

/** Ends every copy (post IDs are positive, so no real entry sorts there). */
const SENTINEL = -(2n ** 63n);
/** Rows per unlogged batch (one partition: the coordinator sends it to one replica set). */
const BATCH_ROWS = 200;

const PK = 'profile_id = ? AND generation = ? AND version = ?';
const Q = {
  first: `SELECT sort_key, post_id, complete, built_at FROM grid_display_copy WHERE ${PK} LIMIT ?`,
  after: `SELECT sort_key, post_id, complete, built_at FROM grid_display_copy WHERE ${PK} AND (sort_key, post_id) < (?, ?) LIMIT ?`,
  insert: `INSERT INTO grid_display_copy (profile_id, generation, version, sort_key, post_id) VALUES (?, ?, ?, ?, ?)`,
  complete: `UPDATE grid_display_copy SET complete = true, built_at = ? WHERE ${PK}`,
  drop: `DELETE FROM grid_display_copy WHERE ${PK}`,
} as const;

export class DisplayCopyStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
    /** How long after its build a copy is served (well inside the table's 7-day TTL). */
    private readonly trustForMs = 5 * 24 * 3600 * 1000,
  ) {}

  private opts(extra: CqlOptions = {}): CqlOptions {
    return { prepare: true, consistency: this.consistency.commit, isIdempotent: true, ...extra };
  }

  /**
   * Up to `limit` entries of the copy of `state` strictly after `after`, or undefined when no
   * complete copy of that state is there (the caller merges instead).
   */
  async slice(
    profileId: bigint,
    state: GridVersion,
    after: GridPosition | undefined,
    limit: number,
    scope?: StatementScope,
  ): Promise<GridEntry[] | undefined> {
    const pk = [profileId, state.generation, state.version];
    const opts = this.opts({ scope });
    // One more row than asked: the sentinel, when the copy ends inside the page.
    const rs = after
      ? await this.db.execute(Q.after, [...pk, after.key, after.postId, limit + 1], opts)
      : await this.db.execute(Q.first, [...pk, limit + 1], opts);
    const first = rs.first();
    if (!first || first.get('complete') !== true) return undefined;
    const builtAt = first.get('built_at') as Date | null;
    if (!builtAt || Date.now() - builtAt.getTime() > this.trustForMs) return undefined;
    const out: GridEntry[] = [];
    for (const row of rs.rows) {
      const postId = row.get('post_id') as bigint;
      if (postId === SENTINEL) break;
      out.push({ key: row.get('sort_key') as bigint, postId });
    }
    return out.slice(0, limit);
  }

  /** Writes the whole copy of `state`, then marks it complete (the order matters: see above). */
  async write(profileId: bigint, state: GridVersion, entries: readonly GridEntry[]): Promise<void> {
    const pk = [profileId, state.generation, state.version];
    const rows = [...entries, { key: SENTINEL, postId: SENTINEL }];
    for (let at = 0; at < rows.length; at += BATCH_ROWS) {
      const queries = rows
        .slice(at, at + BATCH_ROWS)
        .map((e) => ({ query: Q.insert, params: [...pk, e.key, e.postId] }));
      await this.db.batch(queries, this.opts({ logged: false }));
    }
    await this.db.execute(Q.complete, [new Date(), ...pk], this.opts());
  }

  /** Drops a superseded state's copy (one partition tombstone; nobody reads that state). */
  async drop(profileId: bigint, state: GridVersion): Promise<void> {
    await this.db.execute(Q.drop, [profileId, state.generation, state.version], this.opts());
  }
}

/**
 * Which profiles this process has seen with many overrides (at least `minOverrides`): only their
 * reads look for a copy, so a small profile's page costs no extra statement. Learned from
 * override reads (store/grid-reader.ts); bounded (the oldest is forgotten first); `learned` is
 * told about each new one (the copy builder schedules a build).
 */
export class CopyHints {
  private readonly known = new Set<bigint>();

  constructor(
    readonly minOverrides: number,
    private readonly learned: (profileId: bigint) => void = () => {},
    private readonly max = 100_000,
  ) {}

  has(profileId: bigint): boolean {
    return this.known.has(profileId);
  }

  saw(profileId: bigint, overrides: number): void {
    if (this.minOverrides <= 0) return;
    if (overrides < this.minOverrides) {
      this.known.delete(profileId);
      return;
    }
    if (this.known.has(profileId)) return;
    if (this.known.size >= this.max) {
      const oldest = this.known.values().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    this.known.add(profileId);
    this.learned(profileId);
  }
}
