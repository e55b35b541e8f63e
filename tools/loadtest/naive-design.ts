/**
 * The naive wide-column grid (design article §3.4), kept only as the load tester's comparator.
 *
 * The sort key is a clustering column of `naive_grid`, so the grid reads straight off the
 * clustering order, and a move — which cannot UPDATE a primary-key column — deletes the post's old
 * row and inserts a new one, looking the old key up in `naive_grid_keys`. There is no
 * compare-and-set: two concurrent moves of one post both delete the same old row and each insert
 * their own new one, so the post shows up twice; and every delete leaves a tombstone that reads of
 * the partition must step over.
 *
 * Key choice is deliberately the same as regrid's (post IDs as initial keys, midpoints and
 * relabels from src/domain/keys.ts), so the comparison isolates the storage layout and the
 * concurrency control, not the key arithmetic. A relabel here is delete + insert per rewritten
 * row, as it would be in such a design.
 */
import type { Client } from 'cassandra-driver';
import { IdGenerator, MAX_WORKER } from '../../src/domain/ids.js';
import { placeOne, type Keyed, type Slice } from '../../src/domain/keys.js';
import { executeTraced } from './cql-trace.js';
import type { Config } from '../../src/config/config.js';
import type { GridDesign, MoveOutcome, ReadCounts } from './design.js';
import { applyLoadtestMigrations } from './migrations.js';

const FIRST_WINDOW = 16; // rows read on each side of the gap; doubled while the key engine asks
const MAX_ATTEMPTS = 12; // 16 · 2^11 rows per side: more than any load-test grid

interface Row {
  readonly postId: bigint;
  readonly key: bigint;
}

const Q = {
  insertRow: 'INSERT INTO naive_grid (profile_id, sort_key, post_id) VALUES (?, ?, ?)',
  deleteRow: 'DELETE FROM naive_grid WHERE profile_id = ? AND sort_key = ? AND post_id = ?',
  setKey: 'UPDATE naive_grid_keys SET sort_key = ? WHERE profile_id = ? AND post_id = ?',
  keysOf: 'SELECT post_id, sort_key FROM naive_grid_keys WHERE profile_id = ? AND post_id IN ?',
  top: 'SELECT sort_key, post_id FROM naive_grid WHERE profile_id = ? LIMIT ?',
  below:
    'SELECT sort_key, post_id FROM naive_grid WHERE profile_id = ? AND (sort_key, post_id) < (?, ?) LIMIT ?',
  atOrAbove:
    'SELECT sort_key, post_id FROM naive_grid WHERE profile_id = ? AND (sort_key, post_id) >= (?, ?) ' +
    'ORDER BY sort_key ASC, post_id ASC LIMIT ?',
  all: 'SELECT post_id FROM naive_grid WHERE profile_id = ?',
} as const;

/** The write batch failed: it may or may not have been applied. */
class WriteOutcomeUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super(`naive move batch failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'WriteOutcomeUnknown';
  }
}

const toRow = (r: { get(name: string): unknown }): Row => ({
  postId: r.get('post_id') as bigint,
  key: r.get('sort_key') as bigint,
});

export class NaiveDesign implements GridDesign {
  readonly name = 'naive' as const;
  readonly transport = 'direct (naive table)';
  readonly tables = ['naive_grid', 'naive_grid_keys'] as const;
  // Post IDs of this comparator never reach the posts table, so a fixed worker number is safe;
  // the generator also issues the "fresh ID" ceiling for moves to the top, as regrid does.
  private readonly ids = new IdGenerator(MAX_WORKER);

  private constructor(private readonly client: Client) {}

  /** The design on `client`, its tables created first (the load tester's own migration set). */
  static async create(client: Client, config: Config): Promise<NaiveDesign> {
    await applyLoadtestMigrations(client, config);
    return new NaiveDesign(client);
  }

  async createGrid(profileId: bigint, posts: number): Promise<bigint[]> {
    const out: bigint[] = [];
    for (let i = 0; i < posts; i++) {
      const postId = this.ids.next();
      await this.client.batch(
        [
          { query: Q.insertRow, params: [profileId, postId, postId] },
          { query: Q.setKey, params: [postId, profileId, postId] },
        ],
        { prepare: true, logged: true },
      );
      out.push(postId);
    }
    return out;
  }

  async move(profileId: bigint, postId: bigint, after: bigint | null): Promise<MoveOutcome> {
    const wanted = after === null ? [postId] : [postId, after];
    const keys = await this.client.execute(Q.keysOf, [profileId, wanted], { prepare: true });
    const current = new Map(
      keys.rows.map((r) => [r.get('post_id') as bigint, r.get('sort_key') as bigint]),
    );
    const oldKey = current.get(postId);
    if (oldKey === undefined) throw new Error(`naive: post ${postId} is not on grid ${profileId}`);
    const anchor = after === null ? undefined : current.get(after);
    if (after !== null && anchor === undefined) throw new Error(`naive: anchor ${after} missing`);
    const anchorRow = after === null ? null : { postId: after, key: anchor! };

    for (let attempt = 0, window = FIRST_WINDOW; attempt < MAX_ATTEMPTS; attempt++, window *= 2) {
      const { slice, known } = await this.readSlice(profileId, postId, anchorRow, window);
      const placed = placeOne(slice, postId, this.ids.next());
      if (placed.kind === 'need_more') continue;
      known.set(postId, oldKey);
      const queries = placed.writes.flatMap((w: Keyed) => [
        { query: Q.deleteRow, params: [profileId, known.get(w.postId)!, w.postId] },
        { query: Q.insertRow, params: [profileId, w.key, w.postId] },
        { query: Q.setKey, params: [w.key, profileId, w.postId] },
      ]);
      try {
        await this.client.batch(queries, { prepare: true, logged: true });
      } catch (e) {
        throw new WriteOutcomeUnknown(e);
      }
      return {
        version: null,
        rowsWritten: queries.length,
        relabelled: placed.relabelled,
      };
    }
    throw new Error(`naive: no room for post ${postId} even after widening the window`);
  }

  /**
   * Reads `window` rows on each side of the gap right below the anchor (or below the top) and
   * shapes them as the key engine's ascending slice, without the moved post.
   */
  private async readSlice(
    profileId: bigint,
    postId: bigint,
    anchor: Row | null,
    window: number,
  ): Promise<{ slice: Slice; known: Map<bigint, bigint> }> {
    const opts = { prepare: true };
    const belowRows = anchor
      ? (await this.client.execute(Q.below, [profileId, anchor.key, anchor.postId, window], opts))
          .rows
      : (await this.client.execute(Q.top, [profileId, window], opts)).rows;
    const aboveRows = anchor
      ? (
          await this.client.execute(
            Q.atOrAbove,
            [profileId, anchor.key, anchor.postId, window],
            opts,
          )
        ).rows
      : [];
    // A duplicate of the moved post (left by an earlier race) is skipped like the post itself.
    const below = belowRows
      .map(toRow)
      .filter((r) => r.postId !== postId)
      .reverse();
    const above = aboveRows.map(toRow).filter((r) => r.postId !== postId);
    const entries = [...below, ...above];
    const known = new Map(entries.map((r) => [r.postId, r.key]));
    return {
      slice: {
        entries,
        gap: below.length,
        reachesBottom: belowRows.length < window,
        reachesTop: anchor === null || aboveRows.length < window,
      },
      known,
    };
  }

  async readFirstPage(profileId: bigint, limit: number): Promise<bigint[]> {
    const rs = await this.client.execute(Q.top, [profileId, limit], {
      prepare: true,
      isIdempotent: true,
    });
    return rs.rows.map((r) => r.get('post_id') as bigint);
  }

  async traceFirstPage(profileId: bigint, limit: number): Promise<ReadCounts> {
    const { tally } = await executeTraced(this.client, Q.top, [profileId, limit], {
      isIdempotent: true,
    });
    return tally;
  }

  readOrder(profileId: bigint): Promise<bigint[]> {
    return this.readAll(profileId);
  }

  async readAll(profileId: bigint): Promise<bigint[]> {
    const out: bigint[] = [];
    const rs = await this.client.execute(Q.all, [profileId], {
      prepare: true,
      fetchSize: 1000,
      isIdempotent: true,
    });
    for await (const row of rs) out.push(row.get('post_id') as bigint);
    return out;
  }

  classifyFailure(err: unknown): 'rejected' | 'uncertain' {
    // Reads fail before anything is written; a failed write batch may or may not have applied.
    return err instanceof WriteOutcomeUnknown ? 'uncertain' : 'rejected';
  }

  async close(): Promise<void> {}
}
