/**
 * Archive and unarchive (issue 3, design §3.2). Both bump the version through writeGrid.
 *
 * Archive: write the archive record, remove the grid row, then (in the CAS batch) drop the
 * post's override row and its pin. The record is (re)written inside the planner from the very
 * snapshot the compare-and-set is conditioned on, so the key it keeps is the key the post had
 * when it left. Rows-first-then-bump, as for deletes (posts-service.ts).
 *
 * Unarchive: put the grid row back first, then in the CAS batch give the post its key:
 *   - "previous": the kept key if no other row holds it now, else a fresh key next to the holder;
 *   - "chronological": its own ID (no override row unless that key is taken).
 * Either way moved_version is set (the post changed position; cursors must not re-look it up).
 * The record is removed after the commit (a leftover is harmless: unarchive checks the grid row).
 *
 * Costs: archive = 1 record insert + 1 grid-row delete (tombstone in grid_posts) + the CAS batch
 * (+1 row tombstone in the override partition if the post had an override). Unarchive = 1 grid-row
 * insert + the CAS batch (1 upsert, or a few with a relabel) + 1 record delete (in archived_posts).
 */
import { DomainError } from '../domain/errors.js';
import type { ArchiveStore } from '../store/archive-store.js';
import type { WriteOptions } from './grid-writer.js';
import type { PostsServiceDeps } from './posts-service.js';
import { withPostCount } from './post-count.js';
import { restoreKey } from './restore-key.js';

export type UnarchivePosition = 'previous' | 'chronological';

export interface ArchiveDeps extends PostsServiceDeps {
  readonly archive: ArchiveStore;
}

export async function archivePost(
  deps: ArchiveDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
) {
  const post = await deps.posts.getPost(postId);
  if (!post)
    throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
  const onGrid = await deps.store.hasGridRow(profileId, postId);
  if (!onGrid) {
    const archived = await deps.archive.get(profileId, postId);
    throw archived
      ? new DomainError('conflict', 'the post is already archived', { post_id: postId.toString() })
      : new DomainError('post_not_on_grid', 'the post is not on this grid', {
          post_id: postId.toString(),
        });
  }
  // Keep the key first (from a fresh read), so the record exists before the row disappears.
  await keepRecord(deps, profileId, postId, post.authorId);
  await deps.posts.deletePost(postId, [profileId], false);
  return deps.writer.writeGrid(
    profileId,
    async (ctx) => {
      const { snapshot } = ctx;
      const own = snapshot.overrides.find((o) => o.postId === postId);
      await deps.archive.put({
        profileId,
        postId,
        authorId: post.authorId,
        sortKey: own?.key,
        archivedAt: new Date(),
      });
      const pinned = snapshot.head.pins.includes(postId);
      // The row was on the grid (checked above) and this call removed it: -1.
      const mutation = await withPostCount(deps.store, ctx, -1n, {
        ...(own ? { deleteRows: [postId] } : {}),
        ...(pinned ? { statics: { pins: snapshot.head.pins.filter((p) => p !== postId) } } : {}),
      });
      return { kind: 'write', mutation, result: null };
    },
    options,
  );
}

async function keepRecord(deps: ArchiveDeps, profileId: bigint, postId: bigint, authorId: bigint) {
  const { overrides } = await deps.store.readOverrides(profileId);
  const own = overrides.find((o) => o.postId === postId);
  await deps.archive.put({
    profileId,
    postId,
    authorId,
    sortKey: own?.key,
    archivedAt: new Date(),
  });
}

export async function unarchivePost(
  deps: ArchiveDeps,
  profileId: bigint,
  postId: bigint,
  position: UnarchivePosition,
  options: WriteOptions = {},
) {
  const record = await deps.archive.get(profileId, postId);
  if (!record) {
    throw new DomainError('post_not_found', 'the post is not archived on this grid', {
      post_id: postId.toString(),
    });
  }
  if (!(await deps.posts.getPost(postId))) {
    await deps.archive.remove(profileId, postId);
    throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
  }
  // A row already there means an earlier unarchive got this far (and maybe committed): recount.
  const wasOnGrid = await deps.store.hasGridRow(profileId, postId);
  await deps.posts.insertGridRows(profileId, [{ postId, authorId: record.authorId }]);
  const out = await deps.writer.writeGrid(
    profileId,
    async (ctx) => {
      const { snapshot, nextVersion } = ctx;
      const wanted = position === 'previous' ? (record.sortKey ?? postId) : postId;
      const upserts = await restoreKey(deps, {
        profileId,
        snapshot,
        postId,
        wanted,
        pins: snapshot.head.pins,
        movedVersion: nextVersion,
      });
      const mutation = await withPostCount(deps.store, ctx, wasOnGrid ? 'recount' : 1n, {
        upserts,
      });
      return { kind: 'write', mutation, result: { rowsWritten: upserts.length } };
    },
    options,
  );
  await deps.archive.remove(profileId, postId);
  return out;
}
