/**
 * New posts and deleted posts.
 *
 * New post: the body first (a body no grid holds is invisible), then the compare-and-set whose
 * membership effect puts the row into `grid_posts` (domain/membership.ts). Normally the post
 * needs no override (its fresh ID is above every key). But a move-to-top on another process may
 * have written a key from a slightly later ID (clock skew between workers); if the top unpinned
 * key is >= the new ID, the post gets a key as a move-to-top would.
 *
 * Delete (by the author): fence the body (`removed_at`), take the post off every collaborator
 * (its invitation withdrawn, its grid in a compare-and-set when it holds something of the post:
 * invitations.ts), then off the author's grid (post-removal.ts), and drop the body last. A retry after a failure midway finds the fence and the remaining grids and finishes.
 */
import type { ServiceDeps } from '../deps.js';
import { DomainError } from '../../domain/errors.js';
import { idToDate } from '../../domain/ids.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';
import type { PostRecord } from '../../store/posts-store.js';
import type { GridPlanner, WriteOptions } from '../write/grid-writer.js';
import type { MoveDeps } from './move-planner.js';
import { placeAfter } from './move-planner.js';
import { removalPlanner } from '../write/post-removal.js';
import { removeFromCollaborator } from './invitations.js';

export interface NewPost {
  readonly caption?: string | undefined;
  readonly mediaUrl?: string | undefined;
}

export interface PostWriteResult<T> {
  readonly value: T;
  readonly version: bigint;
  readonly generation: bigint;
}

export async function createPost(
  deps: ServiceDeps,
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
  await deps.posts.insertPost(post);
  try {
    // The planner result names the post, so an idempotent replay can answer with it.
    const out = await deps.writer.writeGrid(
      profileId,
      withPostId(newPostPlanner(deps, postId, profileId), postId),
      options,
    );
    return { value: post, version: out.version, generation: out.generation };
  } catch (err) {
    await dropUncommittedBody(deps, profileId, postId, err);
    throw err;
  }
}

/**
 * A create that failed (lost compare-and-sets, an idempotent replay of another attempt, a store
 * error) leaves only its body: take it back so a retry leaves no orphan. A LOCAL_SERIAL read
 * first settles any Paxos round a timed-out attempt left open, and rolls the grid forward; the
 * body stays if the post did reach the grid after all.
 */
export async function dropUncommittedBody(
  deps: ServiceDeps,
  profileId: bigint,
  postId: bigint,
  err: unknown,
): Promise<void> {
  if (err instanceof Error && err.name === 'SimulatedCrash') return; // a dead process cleans nothing
  try {
    const head = await deps.reader.readHead(profileId, 'serial');
    if (head.version > 0n && (await deps.store.hasGridRow(profileId, postId))) return;
    await deps.posts.deletePost(postId, [], true);
  } catch {
    // Left for the audit (an orphaned body is invisible to readers).
  }
}

/** Puts the new post on the grid; a top key only if an override already sits above its ID. */
export function newPostPlanner(
  deps: MoveDeps,
  postId: bigint,
  authorId: bigint,
): GridPlanner<{ overridden: boolean }> {
  return async (ctx) => {
    const { profileId, snapshot, nextVersion } = ctx;
    // A timed-out attempt may have committed: then the row is there and there is nothing to do.
    if (ctx.outcomeUnknown && (await deps.store.hasGridRow(profileId, postId))) {
      return { kind: 'skip', result: { overridden: false } };
    }
    const effects = [{ op: 'grid_put' as const, postId, authorId }];
    const change = { kind: 'created', postIds: [postId] } as const;
    const top = topUnpinnedOverride(snapshot, postId);
    if (top === undefined || top < postId) {
      return { kind: 'write', mutation: { effects }, result: { overridden: false }, change };
    }
    const placed = await placeAfter(deps, snapshot, profileId, postId, null);
    const upserts = placed.writes.map((w) =>
      w.postId === postId
        ? { postId: w.postId, sortKey: w.key, movedVersion: nextVersion }
        : { postId: w.postId, sortKey: w.key },
    );
    return { kind: 'write', mutation: { upserts, effects }, result: { overridden: true }, change };
  };
}

/** Adds `postId` to a planner's result (for the response a replay renders). */
export function withPostId<R extends object>(
  planner: GridPlanner<R>,
  postId: bigint,
): GridPlanner<R & { postId: bigint }> {
  return async (ctx) => {
    const d = await planner(ctx);
    return { ...d, result: { ...d.result, postId } };
  };
}

/** Highest override key among unpinned posts other than `except` (overrides are key DESC). */
function topUnpinnedOverride(snapshot: OverridesSnapshot, except: bigint): bigint | undefined {
  const pins = new Set(snapshot.head.pins);
  return snapshot.overrides.find((o) => o.postId !== except && !pins.has(o.postId))?.key;
}

export async function deletePost(
  deps: ServiceDeps,
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
  if (post && !post.removedAt) await deps.posts.markRemoved(postId);
  for (const collaborator of post?.collaborators ?? []) {
    await removeFromCollaborator(deps, collaborator, postId, profileId); // the author's post
  }
  const remove = removalPlanner(deps, postId);
  const out = await deps.writer.writeGrid(
    profileId,
    async (ctx) => {
      const d = await remove(ctx);
      // Nothing of it anywhere and no body: a 404, unless our own timed-out attempt did it.
      if (d.kind === 'skip' && !post && !ctx.outcomeUnknown) {
        throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
      }
      return { ...d, result: null };
    },
    options,
  );
  if (post) await deps.posts.deletePost(postId, [], true);
  return { value: null, version: out.version, generation: out.generation };
}

export async function getPost(deps: Pick<ServiceDeps, 'posts'>, postId: bigint) {
  const post = await deps.posts.getPost(postId);
  if (!post || post.removedAt)
    throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
  return post;
}
