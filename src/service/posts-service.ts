/**
 * New posts and deleted posts: the two grid writes that also touch the time-ordered table.
 *
 * Both write `posts` + `grid_posts` FIRST and bump the version AFTER (design §3.4). The bump is
 * what tells caches "the order changed"; a reader that fills a cache reads the version first and
 * the rows afterwards, so with rows-then-bump it can only ever store *newer* rows under an older
 * version (fixed by the next version), never an old order under the new one.
 *
 * New post: normally it needs no override (its fresh ID is above every key). But a move-to-top
 * on another process may have written a key from a slightly later ID (clock skew between
 * workers); if the top unpinned key is >= the new ID, the post gets a key as a move-to-top would.
 *
 * Delete: also drops the post's override row (a tombstone, but deletes are rare and moves never
 * do it) and its pin, in the same conditional batch that bumps the version. A retried delete
 * whose first attempt removed the rows but lost the race for the bump finishes the job.
 */
import { DomainError, isDomainError } from '../domain/errors.js';
import { idToDate } from '../domain/ids.js';
import type { OverridesSnapshot } from '../store/grid-store.js';
import type { PostRecord, PostsStore } from '../store/posts-store.js';
import type { GridWriter, GridPlanner, WriteOptions } from './grid-writer.js';
import type { MoveDeps } from './move.js';
import { placeAfter } from './move.js';
import { withPostCount } from './post-count.js';

export interface NewPost {
  readonly caption?: string | undefined;
  readonly mediaUrl?: string | undefined;
}

export interface PostsServiceDeps extends MoveDeps {
  readonly posts: PostsStore;
  readonly writer: GridWriter;
}

export interface PostWriteResult<T> {
  readonly value: T;
  readonly version: bigint;
  readonly generation: bigint;
}

export async function createPost(
  deps: PostsServiceDeps,
  profileId: bigint,
  input: NewPost,
  options: WriteOptions = {},
): Promise<PostWriteResult<PostRecord>> {
  const postId = deps.nextId();
  const post: PostRecord = {
    postId,
    authorId: profileId,
    caption: input.caption,
    mediaUrl: input.mediaUrl,
    createdAt: idToDate(postId),
    collaborators: [],
  };
  await deps.posts.insertPost(post, [profileId]);
  try {
    const out = await deps.writer.writeGrid(profileId, newPostPlanner(deps, postId), options);
    return { value: post, version: out.version, generation: out.generation };
  } catch (err) {
    // Lost every compare-and-set: the version was never bumped for this post, so take it back
    // out and the client's retry does not leave a duplicate (a reader that saw it meanwhile drops
    // it at hydration: the body is gone). Any other failure may have committed (a Paxos timeout,
    // a crash after the CAS): the post stays, and the next version bump covers it.
    if (isDomainError(err) && err.code === 'contention') {
      await deps.posts.deletePost(postId, [profileId]).catch(() => undefined);
    }
    throw err;
  }
}

/** Bump the version; give the new post a top key only if an override already sits above its ID. */
export function newPostPlanner(
  deps: MoveDeps,
  postId: bigint,
): GridPlanner<{ overridden: boolean }> {
  return async (ctx) => {
    const { profileId, snapshot, nextVersion } = ctx;
    const top = topUnpinnedOverride(snapshot, postId);
    if (top === undefined || top < postId) {
      const mutation = await withPostCount(deps.store, ctx, 1n, {});
      return { kind: 'write', mutation, result: { overridden: false } };
    }
    const placed = await placeAfter(deps, snapshot, profileId, postId, null);
    const upserts = placed.writes.map((w) =>
      w.postId === postId
        ? { postId: w.postId, sortKey: w.key, movedVersion: nextVersion }
        : { postId: w.postId, sortKey: w.key },
    );
    const mutation = await withPostCount(deps.store, ctx, 1n, { upserts });
    return { kind: 'write', mutation, result: { overridden: true } };
  };
}

/** Highest override key among unpinned posts other than `except` (overrides are key DESC). */
function topUnpinnedOverride(snapshot: OverridesSnapshot, except: bigint): bigint | undefined {
  const pins = new Set(snapshot.head.pins);
  return snapshot.overrides.find((o) => o.postId !== except && !pins.has(o.postId))?.key;
}

export async function deletePost(
  deps: PostsServiceDeps,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
): Promise<PostWriteResult<null>> {
  const post = await deps.posts.getPost(postId);
  if (post && post.authorId !== profileId) {
    throw new DomainError('forbidden', 'only the author can delete this post', {
      post_id: postId.toString(),
    });
  }
  const hadRow = post ? true : await deps.store.hasGridRow(profileId, postId);
  if (post || hadRow) await deps.posts.deletePost(postId, [profileId], post !== undefined);

  const out = await deps.writer.writeGrid(
    profileId,
    async (ctx) => {
      const { snapshot } = ctx;
      const hasOverride = snapshot.overrides.some((o) => o.postId === postId);
      const pinned = snapshot.head.pins.includes(postId);
      if (!post && !hadRow && !hasOverride && !pinned) {
        throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
      }
      // This call removed the row: -1. A retry finishing an earlier delete cannot tell whether
      // that one was counted: recount.
      const mutation = await withPostCount(deps.store, ctx, hadRow ? -1n : 'recount', {
        ...(hasOverride ? { deleteRows: [postId] } : {}),
        ...(pinned ? { statics: { pins: snapshot.head.pins.filter((p) => p !== postId) } } : {}),
      });
      return { kind: 'write', mutation, result: null };
    },
    options,
  );
  return { value: null, version: out.version, generation: out.generation };
}

export async function getPost(deps: Pick<PostsServiceDeps, 'posts'>, postId: bigint) {
  const post = await deps.posts.getPost(postId);
  if (!post)
    throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
  return post;
}
