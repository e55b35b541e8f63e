/**
 * Consistency checks for one grid (the periodic audit the design asks for, §8).
 *
 * Pure: the caller reads the grid's chronological post IDs, its override rows, its pins and,
 * for a profile without overrides, the page the merged read path returns; this module only
 * compares them. Findings are data, so the CLI can print them and a test can assert on them.
 *
 * What counts as a finding, and why:
 *   - duplicate_key: two unpinned posts share an effective key. The post ID breaks the tie so the
 *     order is still well defined, but the key engine never produces equal keys, so it is a bug.
 *     Pins are excluded: relabels skip pinned rows, so a pin may legitimately share a key.
 *   - orphan_override: an override row for a post that is not on the grid (deleted, archived or
 *     taken down without its override being removed). Harmless to reads, which skip it, but it
 *     means a write path forgot a cleanup.
 *   - orphan_pin: a pin naming a post that is not on the grid.
 *   - merged_mismatch: for a profile with no overrides and no pins, the merged read must equal the
 *     plain chronological read (this is the launch check of §7.3, kept running).
 *   - wrong_post_count: the grid's exact `post_count` differs from the rows it holds.
 *   - orphan_post: a live post (not deleted, not being removed) that is neither on its author's
 *     grid nor archived there: lost by a write path. Found by the full audit's scan of bodies.
 */

export type AuditFinding =
  | { readonly kind: 'duplicate_key'; readonly key: bigint; readonly postIds: readonly bigint[] }
  | { readonly kind: 'orphan_override'; readonly postId: bigint }
  | { readonly kind: 'orphan_pin'; readonly postId: bigint }
  | {
      readonly kind: 'merged_mismatch';
      readonly index: number;
      readonly merged: bigint | undefined;
      readonly chronological: bigint | undefined;
    }
  | { readonly kind: 'wrong_post_count'; readonly stored: bigint; readonly actual: bigint }
  | { readonly kind: 'orphan_post'; readonly postId: bigint; readonly authorId: bigint };

export interface GridSnapshot {
  /** Post IDs on the grid (grid_posts), any order. */
  readonly postIds: readonly bigint[];
  /** Override rows: post → sort key. */
  readonly overrides: readonly { readonly postId: bigint; readonly key: bigint }[];
  readonly pins: readonly bigint[];
  /** The stored `post_count` (undefined: a grid that predates it). */
  readonly postCount?: bigint | undefined;
}

/** Effective-key duplicates among unpinned posts that are on the grid. */
export function findDuplicateKeys(grid: GridSnapshot): AuditFinding[] {
  const onGrid = new Set(grid.postIds);
  const pinned = new Set(grid.pins);
  const override = new Map<bigint, bigint>();
  for (const o of grid.overrides) override.set(o.postId, o.key);
  const byKey = new Map<bigint, bigint[]>();
  for (const id of onGrid) {
    if (pinned.has(id)) continue;
    const key = override.get(id) ?? id;
    const list = byKey.get(key);
    if (list) list.push(id);
    else byKey.set(key, [id]);
  }
  return [...byKey]
    .filter(([, ids]) => ids.length > 1)
    .sort(([a], [b]) => cmpDesc(a, b))
    .map(([key, ids]) => ({ kind: 'duplicate_key', key, postIds: [...ids].sort(cmpDesc) }));
}

/** Override rows and pins that point at posts which are not on the grid. */
export function findOrphans(grid: GridSnapshot): AuditFinding[] {
  const onGrid = new Set(grid.postIds);
  const out: AuditFinding[] = [];
  for (const o of grid.overrides) {
    if (!onGrid.has(o.postId)) out.push({ kind: 'orphan_override', postId: o.postId });
  }
  for (const p of grid.pins) {
    if (!onGrid.has(p)) out.push({ kind: 'orphan_pin', postId: p });
  }
  return out;
}

/**
 * For a profile without overrides or pins: the merged read (display order) must be exactly the
 * chronological read (post IDs descending). Compares the two prefixes the caller read, which must
 * have the same length limit. Returns the first difference only.
 */
export function compareWithChronological(
  merged: readonly bigint[],
  chronological: readonly bigint[],
): AuditFinding[] {
  const n = Math.max(merged.length, chronological.length);
  for (let i = 0; i < n; i++) {
    if (merged[i] !== chronological[i]) {
      return [
        { kind: 'merged_mismatch', index: i, merged: merged[i], chronological: chronological[i] },
      ];
    }
  }
  return [];
}

/** True when the merged-vs-chronological check applies to this grid. */
export const isChronological = (grid: GridSnapshot): boolean =>
  grid.overrides.length === 0 && grid.pins.length === 0;

/** All structural findings for one grid (the merged comparison needs a read; see above). */
export function auditGrid(grid: GridSnapshot): AuditFinding[] {
  return [...findDuplicateKeys(grid), ...findOrphans(grid), ...checkPostCount(grid)];
}

/** The stored count must equal the rows (distinct post IDs) on the grid. */
export function checkPostCount(grid: GridSnapshot): AuditFinding[] {
  const actual = BigInt(new Set(grid.postIds).size);
  return grid.postCount !== undefined && grid.postCount !== actual
    ? [{ kind: 'wrong_post_count', stored: grid.postCount, actual }]
    : [];
}

/** One line per finding, for the CLI. IDs as decimal strings, like the API. */
export function describeFinding(f: AuditFinding): string {
  switch (f.kind) {
    case 'duplicate_key':
      return `duplicate effective key ${f.key} shared by posts ${f.postIds.join(', ')}`;
    case 'orphan_override':
      return `override row for post ${f.postId}, which is not on the grid`;
    case 'orphan_pin':
      return `pin on post ${f.postId}, which is not on the grid`;
    case 'wrong_post_count':
      return `post_count is ${f.stored} but the grid holds ${f.actual} posts`;
    case 'orphan_post':
      return `post ${f.postId} of profile ${f.authorId} is on no grid and not archived`;
    case 'merged_mismatch':
      return `merged read differs from chronological at index ${f.index}: ${f.merged ?? 'end'} vs ${f.chronological ?? 'end'}`;
  }
}

const cmpDesc = (a: bigint, b: bigint): number => (a > b ? -1 : a < b ? 1 : 0);
