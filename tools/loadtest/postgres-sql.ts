/**
 * The seed design's statements on PostgreSQL (design article §3.3), as the load tester's
 * PostgreSQL peer runs them. Named, so `pg` prepares each once per connection (as the Cassandra
 * designs prepare theirs). `$pinned` is the array of pinned post IDs: the load test pins nothing,
 * so it is always the empty array, but the queries keep the article's shape and its cost.
 *
 * Differences from the article's text, all mechanical: the next-key read also returns post_id and
 * takes its LIMIT as a parameter, because when no midpoint is left the same read (and its mirror
 * above the anchor) fetches the few dozen neighbours a relabel rewrites; relabelled rows are
 * written with one UPDATE … FROM unnest(…) instead of one statement per row.
 */
import type { QueryConfig } from 'pg';

const K = 'coalesce(sort_key, post_id)';

const q =
  (name: string, text: string) =>
  (values: unknown[]): QueryConfig => ({
    name: `regrid_${name}`,
    text,
    values,
  });

export const SQL = {
  /** The first statement of every grid write: lock the version row and bump it. */
  bump: q(
    'bump',
    `INSERT INTO grid_order (profile_id, version) VALUES ($1, 1)
     ON CONFLICT (profile_id) DO UPDATE SET version = grid_order.version + 1
     RETURNING version`,
  ),
  insertPost: q('insert_post', 'INSERT INTO grid_entry (profile_id, post_id) VALUES ($1, $2)'),
  /** $1 profile, $2 anchor. */
  anchorKey: q(
    'anchor_key',
    `SELECT ${K} AS k FROM grid_entry WHERE profile_id = $1 AND post_id = $2`,
  ),
  /** Rows right below the anchor in display order, nearest first. $2 moved, $3 pinned, $4/$5 anchor (k, id). */
  below: q(
    'below',
    `SELECT post_id, ${K} AS k FROM grid_entry
     WHERE profile_id = $1 AND post_id <> $2 AND post_id <> ALL ($3::bigint[])
       AND (${K}, post_id) < ($4, $5)
     ORDER BY ${K} DESC, post_id DESC LIMIT $6`,
  ),
  /** The anchor and the rows above it, nearest first (only read for a relabel). */
  atOrAbove: q(
    'at_or_above',
    `SELECT post_id, ${K} AS k FROM grid_entry
     WHERE profile_id = $1 AND post_id <> $2 AND post_id <> ALL ($3::bigint[])
       AND (${K}, post_id) >= ($4, $5)
     ORDER BY ${K} ASC, post_id ASC LIMIT $6`,
  ),
  /** The top rows (a move to the top goes between the top key and a fresh ID). */
  top: q(
    'top',
    `SELECT post_id, ${K} AS k FROM grid_entry
     WHERE profile_id = $1 AND post_id <> $2 AND post_id <> ALL ($3::bigint[])
     ORDER BY ${K} DESC, post_id DESC LIMIT $4`,
  ),
  moveRow: q(
    'move_row',
    `UPDATE grid_entry SET sort_key = $3, moved_version = $4
     WHERE profile_id = $1 AND post_id = $2`,
  ),
  /** A relabel rewrites keys only: moved_version records moves, not relabels (§6.1). */
  relabel: q(
    'relabel',
    `UPDATE grid_entry AS e SET sort_key = r.k
     FROM unnest($2::bigint[], $3::bigint[]) AS r(post_id, k)
     WHERE e.profile_id = $1 AND e.post_id = r.post_id`,
  ),
  /** The article's first-page query. $2 pinned, $3 page size. */
  firstPage: q(
    'first_page',
    `SELECT post_id, ${K} AS k FROM grid_entry
     WHERE profile_id = $1 AND post_id <> ALL ($2::bigint[])
     ORDER BY ${K} DESC, post_id DESC LIMIT $3`,
  ),
  /** The whole grid in display order, duplicates and all. */
  all: q(
    'all',
    `SELECT post_id FROM grid_entry WHERE profile_id = $1 ORDER BY ${K} DESC, post_id DESC`,
  ),
  /** Live rows of a grid: its entries plus its version row. */
  liveRows: q(
    'live_rows',
    `SELECT (SELECT count(*) FROM grid_entry WHERE profile_id = $1)
          + (SELECT count(*) FROM grid_order WHERE profile_id = $1) AS n`,
  ),
} as const;
