/**
 * One chunk of an import: up to a few hundred existing posts of ONE profile brought onto its
 * grid (service/import/run-import.ts cuts the source into chunks).
 *
 * Why this is safe next to a user editing the same grid, and why a rerun changes nothing:
 * - Bodies first, with plain writes, and only those that are missing: a body no grid holds is
 *   invisible, and a body already there is compared, never overwritten (a different one is
 *   counted as a conflict and its post left out).
 * - Then ONE compare-and-set on the profile's grid, like a create: its planner reads, after the
 *   snapshot, which of the chunk's posts are already on the grid or archived there and which
 *   bodies are fenced by a deletion, and records `grid_put` membership effects for the rest in the
 *   same conditional batch. The writer rolls them forward into `grid_posts` afterwards (as it does
 *   for every membership write), so `post_count`, the version, caches, cursors and ETags move
 *   exactly as for any other write, and a concurrent move, pin, archive or delete is serialized
 *   with the import by the version. Nothing of the source's order is written as overrides: the
 *   posts land by their IDs, which is the source's newest-first order.
 * - A chunk whose posts are all there already is a skip: no version bump.
 * - A post deleted or taken down before (its ID in `removed_posts`) is counted as `removed` and
 *   left out, checked before its body is written and again inside the planner
 *   (service/operations/removed-posts.ts): a rerun never brings it back.
 * - The caller hands posts that passed the API's rule, one row per post ID (run-import.ts checks
 *   and collapses the source's rows); a chunk that breaks that is refused whole, before anything
 *   is written, so no caller reaches a grid with a post the API would refuse.
 */
import type { ServiceDeps } from '../deps.js';
import type { StatementScope } from '../../store/statement-scope.js';
import { DomainError } from '../../domain/errors.js';
import { checkPost } from '../../domain/import-plan.js';
import type { MembershipOp } from '../../domain/membership.js';
import { sameBody, type Post } from '../../domain/post.js';

export interface ChunkOutcome {
  /** Posts this chunk put on the grid. */
  readonly imported: number;
  /** Posts already on the grid (or archived there, or being deleted): left as they are. */
  readonly present: number;
  /** Posts deleted or taken down before (removed_posts): their IDs are spent, left out. */
  readonly removed: number;
  /** Posts whose existing body differs from the source's: left out, counted as errors. */
  readonly conflicts: number;
  /** Their IDs (the report names the source row of each). */
  readonly conflictIds: readonly bigint[];
  /** The grid's version moved (one compare-and-set committed). */
  readonly bumped: boolean;
}

type ImportDeps = Pick<ServiceDeps, 'posts' | 'store' | 'archive' | 'writer' | 'removed'>;

export async function importChunk(
  deps: ImportDeps,
  profileId: bigint,
  posts: readonly Post[],
  scope?: StatementScope,
): Promise<ChunkOutcome> {
  refuseUnfit(profileId, posts);
  // Spent IDs (a deletion or takedown, removed-posts.ts) get no body; the planner checks again.
  const spent = await deps.removed.among(posts.map((p) => p.postId));
  const live = posts.filter((p) => !spent.has(p.postId));
  const existing = new Map(
    (await deps.posts.getPosts(live.map((p) => p.postId))).map((b) => [b.postId, b]),
  );
  const fresh = live.filter((p) => !existing.has(p.postId));
  const same = live.filter((p) => {
    const b = existing.get(p.postId);
    return b !== undefined && sameBody(b, p);
  });
  await Promise.all(fresh.map((p) => deps.posts.insertPost(p, [], scope)));
  const candidates = [...fresh, ...same];
  const conflictIds = live.filter((p) => !candidates.includes(p)).map((p) => p.postId);
  const conflicts = conflictIds.length;
  const removedBefore = posts.length - live.length;
  if (candidates.length === 0) {
    const removed = removedBefore;
    return { imported: 0, present: 0, removed, conflicts, conflictIds, bumped: false };
  }

  const out = await deps.writer.writeGrid(
    profileId,
    async () => {
      const ids = candidates.map((p) => p.postId);
      const [onGrid, archived, bodies, gone] = await Promise.all([
        deps.store.gridRowsAmong(profileId, ids),
        deps.archive.archivedAmong(profileId, ids),
        deps.posts.getPosts(ids), // the removal fence, read after the snapshot
        deps.removed.among(ids), // the removal record, which outlives the body
      ]);
      const alive = new Set(
        bodies.filter((b) => !b.removedAt && !gone.has(b.postId)).map((b) => b.postId),
      );
      const effects: MembershipOp[] = candidates
        .filter((p) => alive.has(p.postId) && !onGrid.has(p.postId) && !archived.has(p.postId))
        .map((p) => ({ op: 'grid_put', postId: p.postId, authorId: profileId }));
      const result = { imported: effects.length, gone: [...gone.keys()] };
      if (effects.length === 0) return { kind: 'skip', result };
      const change = { kind: 'imported', postIds: effects.map((e) => e.postId) } as const;
      return { kind: 'write', mutation: { effects }, result, change };
    },
    { op: 'import', scope },
  );
  const { imported, gone } = out.result;
  // Removed since the check above: a body this chunk wrote after the removal deleted the old
  // one is on no grid, and goes too (GET /v1/posts/:id must stay 404).
  const orphans = fresh.filter((p) => gone.includes(p.postId));
  await Promise.all(orphans.map((p) => deps.posts.deletePost(p.postId, [], true, scope)));
  const present = candidates.length - imported - gone.length;
  const removed = removedBefore + gone.length;
  return { imported, present, removed, conflicts, conflictIds, bumped: imported > 0 };
}

/** Every post by the API's rule, of the chunk's profile, each ID once; else nothing is written. */
function refuseUnfit(profileId: bigint, posts: readonly Post[]): void {
  const seen = new Set<bigint>();
  for (const p of posts) {
    const why =
      p.authorId !== profileId
        ? `post ${p.postId} is not by profile ${profileId}`
        : seen.has(p.postId)
          ? `post ${p.postId} is in the chunk twice`
          : checkPost(p)?.replace(/^/, `post ${p.postId}: `);
    if (why !== undefined) throw new DomainError('invalid_request', `import chunk: ${why}`);
    seen.add(p.postId);
  }
}
