/**
 * New posts, with or without named collaborators.
 *
 * The body first (a body no grid holds is invisible), then the compare-and-set whose membership
 * effect puts the row into `grid_posts` (domain/membership.ts). Normally the post needs no
 * override (its fresh ID is above every key). But a move-to-top on another process may have
 * written a key from a slightly later ID (clock skew between workers); if the top unpinned key
 * is >= the new ID, the post gets a key as a move-to-top would (placement.ts).
 *
 * Named collaborators (design §3.1 and §5.2; Instagram's collab invitations): the post goes on
 * the author's grid and an invitation into each admitted collaborator's inbox, outside that
 * collaborator's grid (invitations.ts): nothing shows on a collaborator's profile, and its grid
 * version does not move, until they accept (collaborators.ts). An invitation that would pass an
 * invitee's or the author's limits is not sent, and the create says which and why.
 */
import { idToDate } from '../../domain/ids.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { PostRecord, PostsStore } from '../../store/posts-store.js';
import type { GridPlanner, GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import {
  admitCollaborators,
  assertCollaborators,
  deliverInvites,
  type InvitePorts,
  type NotInvited,
} from './invitations.js';
import { placeAfter, type PlacePorts } from './placement.js';
import type { StatementScope } from '../../store/statement-scope.js';

export interface NewPost {
  readonly caption?: string | undefined;
  readonly mediaUrl?: string | undefined;
  readonly collaborators?: readonly bigint[] | undefined;
}

export interface PostWriteResult<T> {
  readonly value: T;
  readonly version: bigint;
  readonly generation: bigint;
}

export interface CreatePorts extends PlacePorts, InvitePorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly store: Pick<GridStore, 'hasGridRow'>;
  readonly posts: Pick<PostsStore, 'insertPost' | 'deletePost' | 'getPost'>;
}

type Created = PostWriteResult<PostRecord> & { readonly notInvited: readonly NotInvited[] };

/**
 * A post on the author's grid; named collaborators are invited (see the header). Without any,
 * admitting and delivering read and write nothing.
 */
export function createPost(
  ports: CreatePorts,
  authorId: bigint,
  input: NewPost,
  options: WriteOptions = {},
): Promise<Created> {
  return trackOp('create', async () => {
    const collaborators = input.collaborators ?? [];
    const { scope } = options;
    assertCollaborators(authorId, collaborators);
    const { invited, notInvited } = await admitCollaborators(ports, authorId, collaborators, scope);
    const post = newBody(ports.nextId(), authorId, input, invited);
    const postId = post.postId;
    await ports.posts.insertPost(post, [], scope);
    // The author's grid carries the request's idempotency ticket (options); the planner result
    // names the post and the refusals, so a replay can answer with them.
    const planner = newPostPlanner(ports, postId, authorId);
    let out;
    try {
      out = await ports.writer.writeGrid(
        authorId,
        async (ctx) => {
          const d = await planner(ctx);
          return { ...d, result: { ...d.result, postId, notInvited } };
        },
        { ...options, op: 'create' },
      );
    } catch (err) {
      await dropUncommittedBody(ports, authorId, postId, err, scope);
      throw err;
    }
    await deliverInvites(ports, postId, authorId, invited, scope);
    return { value: post, notInvited, version: out.version, generation: out.generation };
  });
}

const newBody = (
  postId: bigint,
  authorId: bigint,
  input: NewPost,
  collaborators: bigint[],
): PostRecord => ({
  postId,
  authorId,
  caption: input.caption,
  mediaUrl: input.mediaUrl,
  createdAt: idToDate(postId),
  collaborators,
});

/**
 * A create that failed (lost compare-and-sets, an idempotent replay of another attempt, a store
 * error) leaves only its body: take it back so a retry leaves no orphan. A LOCAL_SERIAL read
 * first settles any Paxos round a timed-out attempt left open, and rolls the grid forward; the
 * body stays if the post did reach the grid after all.
 */
async function dropUncommittedBody(
  ports: CreatePorts,
  profileId: bigint,
  postId: bigint,
  err: unknown,
  scope: StatementScope | undefined,
): Promise<void> {
  if (err instanceof Error && err.name === 'SimulatedCrash') return; // a dead process cleans nothing
  try {
    const head = await ports.reader.readHead(profileId, 'serial');
    if (head.version > 0n && (await ports.store.hasGridRow(profileId, postId))) return;
    await ports.posts.deletePost(postId, [], true, scope);
  } catch {
    // Left for the audit (an orphaned body is invisible to readers).
  }
}

/** Puts the new post on the grid; a top key only if an override already sits above its ID. */
function newPostPlanner(
  ports: CreatePorts,
  postId: bigint,
  authorId: bigint,
): GridPlanner<{ overridden: boolean }> {
  return async (ctx) => {
    const { profileId, snapshot, nextVersion } = ctx;
    // A timed-out attempt may have committed: then the row is there and there is nothing to do.
    if (ctx.outcomeUnknown && (await ports.store.hasGridRow(profileId, postId))) {
      return { kind: 'skip', result: { overridden: false } };
    }
    const effects = [{ op: 'grid_put' as const, postId, authorId }];
    const change = { kind: 'created', postIds: [postId] } as const;
    const top = topUnpinnedOverride(snapshot, postId);
    if (top === undefined || top < postId) {
      return { kind: 'write', mutation: { effects }, result: { overridden: false }, change };
    }
    const placed = await placeAfter(ports, ctx.rows, snapshot, profileId, postId, null);
    const upserts = placed.writes.map((w) =>
      w.postId === postId
        ? { postId: w.postId, sortKey: w.key, movedVersion: nextVersion }
        : { postId: w.postId, sortKey: w.key },
    );
    return { kind: 'write', mutation: { upserts, effects }, result: { overridden: true }, change };
  };
}

/** Highest override key among unpinned posts other than `except` (overrides are key DESC). */
function topUnpinnedOverride(snapshot: OverridesSnapshot, except: bigint): bigint | undefined {
  const pins = new Set(snapshot.head.pins);
  return snapshot.overrides.find((o) => o.postId !== except && !pins.has(o.postId))?.key;
}
