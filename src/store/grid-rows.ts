/**
 * The statements GridStore sends for the override and grid partitions, and how their rows decode
 * into the domain's head and override rows.
 */
import type { types } from 'cassandra-driver';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';
import { decodeEffects } from '../domain/membership.js';
import { decodePins } from './grid-mutation.js';
import { decodeRing } from './request-ring-codec.js';
import { decodeUndoBuckets, UNDO_COLUMNS } from './undo-ring-codec.js';

export const EMPTY_HEAD: GridHead = {
  version: 0n,
  generation: 1n,
  pins: [],
  postCount: undefined,
  membershipVersion: 0n,
};

const HEAD_COLUMNS = 'version, generation, pins, post_count, effects, applied_version';
// The request ring (up to a few KB) travels only with the snapshot of a turn that carries an
// Idempotency-Key and with the idempotency pre-check, not with every head a reader, the cache
// or an unkeyed write reads.
const RING = 'recent_requests';
// The home region (cql/024_home_region.cql) and the undo ring: what every writer's snapshot reads.
const HOME = 'home_region';
const UNDO_RING = UNDO_COLUMNS.join(', ');
export const SELECT_HEAD = `SELECT ${HEAD_COLUMNS} FROM grid_overrides WHERE profile_id = ? LIMIT 1`;
export const SELECT_WRITER_HEAD = `SELECT ${HEAD_COLUMNS}, ${HOME}, ${UNDO_RING} FROM grid_overrides WHERE profile_id = ? LIMIT 1`;
export const SELECT_HEAD_AND_RING = `SELECT ${HEAD_COLUMNS}, ${RING}, ${HOME}, ${UNDO_RING} FROM grid_overrides WHERE profile_id = ? LIMIT 1`;
export const SELECT_OVERRIDES = `SELECT post_id, sort_key, moved_version, ${HEAD_COLUMNS}, ${RING}, ${HOME}, ${UNDO_RING} FROM grid_overrides WHERE profile_id = ?`;
// Static cells come back with EVERY row of a result: the rows query carries only `version`
// (8 bytes a row), the statics and the rings are read once, beside it.
export const SELECT_OVERRIDE_ROWS =
  'SELECT post_id, sort_key, moved_version, version FROM grid_overrides WHERE profile_id = ?';
// A page read's state (grid-store.ts `readState`): the head rides with the first override rows in
// one statement; static cells come back with every row, so only these first rows carry them.
export const STATE_FIRST_ROWS = 100;
export const SELECT_STATE = `SELECT post_id, sort_key, moved_version, ${HEAD_COLUMNS} FROM grid_overrides WHERE profile_id = ? LIMIT ${STATE_FIRST_ROWS}`;
export const SELECT_OVERRIDE_ROWS_AFTER = `${SELECT_OVERRIDE_ROWS} AND post_id > ?`;
// COUNT(post_id), not COUNT(*): a partition holding only its stamp counts as one row for `*`.
export const COUNT_GRID_ROWS =
  'SELECT COUNT(post_id) AS count FROM grid_posts WHERE profile_id = ?';
export const SELECT_GRID_ROW =
  'SELECT post_id FROM grid_posts WHERE profile_id = ? AND post_id = ?';
export const SELECT_GRID_ROWS =
  'SELECT post_id FROM grid_posts WHERE profile_id = ? AND post_id IN ?';
// The stamp (static, cql/021_grid_posts_stamp.cql) comes back with every row, 8 bytes each.
const ROWS = 'SELECT post_id, membership_version FROM grid_posts WHERE profile_id = ?';
export const STREAM = {
  desc: { all: ROWS, from: `${ROWS} AND post_id <= ?` },
  asc: {
    all: `${ROWS} ORDER BY post_id ASC`,
    from: `${ROWS} AND post_id >= ? ORDER BY post_id ASC`,
  },
} as const;

/**
 * The membership record a page of grid_posts rows shows (its stamp; null = never stamped), and
 * its post IDs: a partition holding only the stamp yields one row without a post.
 */
export function rowsPage(rows: readonly types.Row[]): { ids: bigint[]; stamp?: bigint | null } {
  const ids = rows.flatMap((r) => (r.get('post_id') === null ? [] : [r.get('post_id') as bigint]));
  const first = rows[0];
  if (!first) return { ids };
  return { ids, stamp: (first.get('membership_version') as bigint | null) ?? null };
}

/**
 * A static-only partition yields one row with a null post_id; a row without a key (it never
 * happens on our write paths) is treated as "no override".
 */
export function overrideOf(row: types.Row): OverrideRow | undefined {
  const postId = row.get('post_id') as bigint | null;
  const key = row.get('sort_key') as bigint | null;
  if (postId === null || key === null) return undefined;
  return { postId, key, movedVersion: (row.get('moved_version') as bigint | null) ?? undefined };
}

export function headOf(row: types.Row | undefined | null): GridHead {
  if (!row) return EMPTY_HEAD;
  const effects = decodeEffects(row.get('effects') as string | null);
  return {
    version: (row.get('version') as bigint | null) ?? 0n,
    generation: (row.get('generation') as bigint | null) ?? 1n,
    pins: decodePins(row.get('pins') as bigint[] | null),
    postCount: (row.get('post_count') as bigint | null) ?? undefined,
    effects,
    membershipVersion: effects?.version ?? 0n,
    appliedVersion: (row.get('applied_version') as bigint | null) ?? 0n,
    ...(row.keys().includes(RING) ? { recentRequests: decodeRing(row.get(RING)) } : {}),
    ...(row.keys().includes(HOME) && row.get(HOME) ? { homeRegion: row.get(HOME) as string } : {}),
    ...(row.keys().includes(UNDO_COLUMNS[0]!)
      ? { recentMoves: decodeUndoBuckets(UNDO_COLUMNS.map((c) => row.get(c))) }
      : {}),
  };
}
