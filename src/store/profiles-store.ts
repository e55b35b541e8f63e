/**
 * Cross-profile reads and the few post-body writes that the feature paths need beyond
 * posts-store.ts: listing every profile that has a grid (audit, full scan, paged) and rewriting a
 * post's collaborator set. Neither is on the grid read path.
 */
import type { types } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

const DISTINCT = {
  grid_posts: 'SELECT DISTINCT profile_id FROM grid_posts',
  grid_overrides: 'SELECT DISTINCT profile_id FROM grid_overrides',
} as const;
const LIVE_POSTS = 'SELECT post_id, author_id, removed_at FROM posts';
const SET_COLLABORATORS = 'UPDATE posts SET collaborators = ? WHERE post_id = ?';

export class ProfilesStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  /** Every profile with a time-ordered grid or an override partition (each once). Full scan. */
  async *listProfiles(pageSize = 500): AsyncGenerator<bigint, void, undefined> {
    const seen = new Set<bigint>();
    for (const query of Object.values(DISTINCT)) {
      for await (const row of this.scan(query, pageSize)) {
        const id = row.get('profile_id') as bigint;
        if (!seen.has(id)) {
          seen.add(id);
          yield id;
        }
      }
    }
  }

  /** Every post body not fenced for removal (full scan, paged; the audit only). */
  async *listLivePosts(
    pageSize = 1000,
  ): AsyncGenerator<{ postId: bigint; authorId: bigint }, void, undefined> {
    for await (const row of this.scan(LIVE_POSTS, pageSize)) {
      if (row.get('removed_at')) continue;
      yield { postId: row.get('post_id') as bigint, authorId: row.get('author_id') as bigint };
    }
  }

  /** The rows of a full-table query, one page at a time. */
  private async *scan(query: string, pageSize: number): AsyncGenerator<types.Row> {
    let pageState: string | undefined;
    do {
      const rs = await this.db.execute(query, [], {
        prepare: true,
        consistency: this.consistency.commit,
        isIdempotent: true,
        fetchSize: pageSize,
        ...(pageState ? { pageState } : {}),
      });
      yield* rs.rows;
      pageState = rs.pageState ?? undefined;
    } while (pageState);
  }

  /**
   * Overwrites the post's collaborator set. The column is frozen, so this replaces one cell.
   * Cassandra stores an EMPTY frozen collection as a cell tombstone (see grid-mutation.ts on pins);
   * that is harmless here: `posts` is read by key only, never scanned, and it reads back as none.
   */
  async setCollaborators(
    postId: bigint,
    collaborators: readonly bigint[],
    scope: StatementScope | undefined,
  ): Promise<void> {
    await this.db.execute(SET_COLLABORATORS, [[...collaborators], postId], {
      prepare: true,
      consistency: this.consistency.commit,
      scope,
    });
  }
}
