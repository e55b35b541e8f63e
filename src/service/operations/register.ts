/**
 * Registered posts: a platform tells regrid about a post its own post service made, under the
 * platform's ID (`PUT /v1/profiles/:profile_id/posts/:post_id`, docs/integration.md).
 *
 * Registration is a create whose ID and time come from outside: the body first (with a
 * lightweight transaction, so two registrations of one ID with different bodies cannot both
 * win), then the grid's compare-and-set whose membership effect puts the row into `grid_posts`.
 * Unlike a create it never takes a top key: the post lands where its ID puts it among the
 * unmoved posts (its creation position, under the pins), so an old post registered today stays
 * where its date says.
 *
 * Every decision is taken inside the compare-and-set: the planner reads, after the snapshot, the
 * body (which must still be this request's and not fenced by a deletion), the removal record
 * (a deleted or taken-down ID is spent for good: 410 `post_removed`, removed-posts.ts), the grid
 * row and the archive record. The same request again is a skip (no version bump); a different
 * body is 409. Unregistering is the author's delete (delete.ts), idempotent: nothing there is a
 * success, and the ID is spent like any deleted post's.
 * Reached through `GridService.platform` (platform-posts.ts, the service routes).
 */
import { DomainError } from '../../domain/errors.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { MembershipOp } from '../../domain/membership.js';
import type { InvitesStore } from '../../store/invites-store.js';
import type { PostRecord, PostsStore } from '../../store/posts-store.js';
import type { GridPlanner, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { removePost, type DeletePorts } from './delete.js';
import { postRemoved } from './removed-posts.js';
import {
  assertCollaborators,
  inviteCollaborators,
  type InvitePorts,
  type NotInvited,
} from './invitations.js';

export interface RegisterPorts extends DeletePorts, InvitePorts {
  readonly invites: InvitesStore;
  readonly posts: Pick<PostsStore, 'getPost' | 'insertPostIfAbsent' | 'markRemoved' | 'deletePost'>;
  readonly reader: Pick<CassandraGridReader, 'readHead'>;
}

export interface RegisterResult {
  readonly post: PostRecord;
  /** False when the same registration was already there: nothing was written. */
  readonly created: boolean;
  /** Named collaborators no invitation reached this time (limits, blocks; invitations.ts). */
  readonly notInvited: readonly NotInvited[];
  readonly version: bigint;
  readonly generation: bigint;
}

/** Registers `post` (its `authorId` is the profile whose grid shows it). */
export function registerPost(
  ports: RegisterPorts,
  post: PostRecord,
  options: WriteOptions = {},
): Promise<RegisterResult> {
  return trackOp('register', async () => {
    const opts: WriteOptions = { ...options, op: 'register' };
    assertCollaborators(post.authorId, post.collaborators);
    const { scope } = opts;
    // A spent ID gets no body written (the planner decides again, after its snapshot).
    const [existing, gone] = await Promise.all([
      ports.posts.getPost(post.postId, scope),
      ports.removed.get(post.postId, scope),
    ]);
    if (gone) throw postRemoved(gone);
    let inserted = false;
    if (existing) await assertSameBody(ports, existing, post);
    else if (!(inserted = await ports.posts.insertPostIfAbsent(post, scope))) {
      const winner = await ports.posts.getPost(post.postId, scope);
      if (winner) await assertSameBody(ports, winner, post);
    }
    let out;
    try {
      out = await ports.writer.writeGrid(post.authorId, registerPlanner(ports, post), opts);
    } catch (err) {
      // Removed between the check above and the planner: the body this call wrote after the
      // removal deleted the old one is on no grid; it goes too (GET /v1/posts/:id must stay 404).
      if (inserted && err instanceof DomainError && err.code === 'post_removed') {
        await ports.posts.deletePost(post.postId, [], true, scope);
      }
      throw err;
    }
    // Invitations live outside the invitees' grids, under the same limits as a created post's
    // (invitations.ts). Only the registration that wrote the body or put the post on the grid
    // sends them: a repeated one must not invite again a collaborator who has declined or left
    // since (the race suite found exactly that). A crash after the grid write and before the
    // invitations loses them; the platform can name the collaborators again by a new post.
    const first = inserted || out.result.joined;
    const notInvited =
      first && post.collaborators.length > 0
        ? await inviteCollaborators(ports, post.postId, post.authorId, post.collaborators, scope)
        : [];
    return {
      post,
      created: out.result.joined,
      notInvited,
      version: out.version,
      generation: out.generation,
    };
  });
}

function registerPlanner(ports: RegisterPorts, post: PostRecord): GridPlanner<{ joined: boolean }> {
  return async ({ profileId }) => {
    const [body, gone, onGrid, archived] = await Promise.all([
      ports.posts.getPost(post.postId), // the removal fence and the winning body, after the snapshot
      ports.removed.get(post.postId), // the removal record, which outlives the body
      ports.store.hasGridRow(profileId, post.postId),
      ports.archive.get(profileId, post.postId),
    ]);
    if (gone) throw postRemoved(gone);
    if (!body || body.removedAt) {
      throw new DomainError('conflict', 'the post was deleted while it was being registered', {
        post_id: post.postId.toString(),
      });
    }
    assertBody(body, post);
    // Already on the grid, or archived by its owner since: the registration holds as it is.
    if (onGrid || archived) return { kind: 'skip', result: { joined: false } };
    const effects: MembershipOp[] = [{ op: 'grid_put', postId: post.postId, authorId: profileId }];
    const change = { kind: 'registered', postIds: [post.postId] } as const;
    return { kind: 'write', mutation: { effects }, result: { joined: true }, change };
  };
}

/** As assertBody; a body fenced by a removal answers 410 when the removal is recorded. */
async function assertSameBody(
  ports: RegisterPorts,
  have: PostRecord,
  want: PostRecord,
): Promise<void> {
  const gone = have.removedAt ? await ports.removed.get(want.postId) : undefined;
  if (gone) throw postRemoved(gone);
  assertBody(have, want);
}

function assertBody(have: PostRecord, want: PostRecord): void {
  const same =
    have.authorId === want.authorId &&
    have.caption === want.caption &&
    have.mediaUrl === want.mediaUrl &&
    have.createdAt.getTime() === want.createdAt.getTime() &&
    have.collaborators.length === want.collaborators.length &&
    have.collaborators.every((c, i) => c === want.collaborators[i]);
  if (same && !have.removedAt) return;
  throw new DomainError(
    'conflict',
    have.removedAt
      ? 'a post with this ID is being deleted'
      : 'a post with this ID is registered with a different body',
    { post_id: want.postId.toString(), profile_id: have.authorId.toString() },
  );
}

/**
 * Unregisters (deletes) the post from `profileId`'s grid and every collaborator's. Idempotent:
 * a post that is not there any more is a success with the grid's current version.
 */
export async function unregisterPost(
  ports: RegisterPorts,
  profileId: bigint,
  postId: bigint,
  options: WriteOptions = {},
): Promise<{ version: bigint; generation: bigint }> {
  const out = await trackOp('unregister', async () => {
    const opts: WriteOptions = { ...options, op: 'unregister' };
    const body = await ports.posts.getPost(postId, opts.scope);
    if (body && body.authorId !== profileId) {
      throw new DomainError('conflict', 'the post belongs to another profile', {
        post_id: postId.toString(),
        profile_id: body.authorId.toString(),
      });
    }
    try {
      const out = await removePost(ports, profileId, postId, opts);
      return { version: out.version, generation: out.generation };
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'post_not_found') throw err;
      const head = await ports.reader.readHead(profileId);
      return { version: head.version, generation: head.generation };
    }
  });
  await ports.postCache?.forget([postId]);
  return out;
}
