/**
 * What a reader may see of a post (issue 31; docs/http-api.md "Who sees what"). The rule is the
 * grids': a post, and each collaborator of it, is public exactly as far as a public grid read
 * shows it, so no post read tells a visitor more than the grids do.
 *
 * - A post is readable while some grid holds it (its author's, or an accepting collaborator's).
 *   Off every grid (archived, or a body whose grid write never committed) it is a 404 with the
 *   body of a post that does not exist, except to a profile whose own archive holds it (its
 *   owner). Removed (deleted, taken down) is a 404 for everyone.
 * - Its `collaborators` are the named ones whose grid holds it. One who has not accepted is
 *   not among them (nor one who archived it there: their grid does not show it either); the
 *   author alone also sees `pending`, the ones whose invitation still waits. An invitation that
 *   ended (declined, dropped by a block, the collaborator left or archived) is in neither list,
 *   so the author cannot tell these apart.
 *
 * The author's grid is rolled forward before its row is read (store/grid-reader.ts): an archive
 * whose membership effects a crashed writer left unapplied does not show the post.
 */
import { DomainError } from '../../domain/errors.js';
import type { ArchiveStore } from '../../store/archive-store.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { GridStore } from '../../store/grid-store.js';
import type { InvitesStore } from '../../store/invites-store.js';
import type { PostRecord, PostsStore } from '../../store/posts-store.js';

export interface PostViewPorts {
  readonly posts: Pick<PostsStore, 'getPost'>;
  readonly reader: Pick<CassandraGridReader, 'readHead'>;
  readonly store: Pick<GridStore, 'hasGridRow' | 'gridRowsAmong'>;
  readonly archive: Pick<ArchiveStore, 'get'>;
  readonly invites: Pick<InvitesStore, 'get'>;
}

/** A post as one reader may see it. */
export interface ShownPost {
  readonly post: PostRecord;
  /** The collaborators whose grid holds it. */
  readonly collaborators: readonly bigint[];
  /** The author's view only: collaborators whose invitation still waits. */
  readonly pending?: readonly bigint[];
}

const notFound = (postId: bigint) =>
  new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });

/** One post for `viewer` (a profile's token; undefined = anyone). */
export async function readPost(
  ports: PostViewPorts,
  postId: bigint,
  viewer?: bigint,
): Promise<ShownPost> {
  const post = await ports.posts.getPost(postId);
  if (!post || post.removedAt) throw notFound(postId);
  await ports.reader.readHead(post.authorId); // rolls the author's grid forward
  const [onAuthorGrid, shown] = await Promise.all([
    ports.store.hasGridRow(post.authorId, postId),
    shownCollaborators(ports, [post]),
  ]);
  const collaborators = shown.get(postId) ?? [];
  const visible =
    onAuthorGrid ||
    collaborators.length > 0 ||
    (viewer !== undefined && (await ports.archive.get(viewer, postId)) !== undefined);
  if (!visible) throw notFound(postId);
  if (viewer !== post.authorId) return { post, collaborators };
  const waiting = await Promise.all(
    post.collaborators.map(async (c) =>
      collaborators.includes(c) || !(await ports.invites.get(c, postId)) ? [] : [c],
    ),
  );
  return { post, collaborators, pending: waiting.flat() };
}

/**
 * The collaborators each post may be shown with: those whose grid holds it. One statement per
 * distinct collaborator (a page of posts by one author usually names few).
 */
export async function shownCollaborators(
  ports: Pick<PostViewPorts, 'store'>,
  posts: readonly PostRecord[],
): Promise<Map<bigint, bigint[]>> {
  const byCollaborator = new Map<bigint, bigint[]>();
  for (const p of posts) {
    for (const c of p.collaborators) {
      if (c === p.authorId) continue;
      byCollaborator.set(c, [...(byCollaborator.get(c) ?? []), p.postId]);
    }
  }
  const held = await Promise.all(
    [...byCollaborator].map(
      async ([c, ids]) => [c, await ports.store.gridRowsAmong(c, ids)] as const,
    ),
  );
  const out = new Map<bigint, bigint[]>();
  for (const p of posts) {
    out.set(
      p.postId,
      p.collaborators.filter((c) => held.some(([h, rows]) => h === c && rows.has(p.postId))),
    );
  }
  return out;
}

/** Posts with the collaborators each may be shown with (listings: media, archive, inbox). */
export async function showPosts(
  ports: Pick<PostViewPorts, 'store'>,
  posts: readonly PostRecord[],
): Promise<ShownPost[]> {
  const shown = await shownCollaborators(ports, posts);
  return posts.map((post) => ({ post, collaborators: shown.get(post.postId) ?? [] }));
}
