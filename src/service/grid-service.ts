/**
 * The service: the one surface the HTTP layer, the CLIs, the load tester and the benchmarks call.
 * Built once (src/main.ts, or a test harness): wiring.ts constructs every store once, the single write
 * path (GridWriter.writeGrid), the reader, and the Redis caches when given. Each write is one line
 * here into its operation (operations/: move, create, delete, pin, archive, reset, batch order,
 * collaborators, invitations, undo, takedown), which gets the one record of ports this class
 * holds and declares in its signature the few it uses. Reads: read/ (pages, media, audit), the
 * order resource, the listings.
 */
import type { ServiceCaches } from '../cache/caches.js';
import type { PostCache } from '../cache/post-cache.js';
import type { MoveRateLimiter } from '../cache/rate-limit.js';
import type { BatchOrderRequest } from '../domain/batch-order.js';
import { DomainError } from '../domain/errors.js';
import type { CassandraGridReader } from '../store/grid-reader.js';
import type { GridHead, GridStore } from '../store/grid-store.js';
import type { MembershipStore } from '../store/membership-store.js';
import type { PostRecord, PostsStore } from '../store/posts-store.js';
import type { StatementScope } from '../store/statement-scope.js';
import type { ServiceDeps } from './deps.js';
import type { Flags } from './flags.js';
import * as archive from './operations/archive.js';
import { patchOrder, readOrder } from './operations/batch-order.js';
import * as collab from './operations/collaborators.js';
import { createPost, type NewPost } from './operations/create.js';
import { deletePost } from './operations/delete.js';
import * as invitations from './operations/invitations.js';
import { movePost, type MoveOptions, type MoveOutcome } from './operations/move.js';
import { setPins } from './operations/pin.js';
import { PlatformPosts } from './platform-posts.js';
import { resetGrid } from './operations/reset.js';
import { takedownPost } from './operations/takedown.js';
import { undoMove } from './operations/undo.js';
import { auditAll, auditProfile } from './read/audit.js';
import { listMedia, type MediaQuery } from './read/media.js';
import { readPost, showPosts } from './read/post-view.js';
import { readFirstPageOrder, type GridPage, type PageQuery } from './read/read-page.js';
import type { RenderedRead } from './read/rendered-read.js';
import type { CopyBuilder } from './read/copy-builder.js';
import { wireService, type GridServiceOptions } from './wiring.js';
import type { ChangeStream } from './changes/changes.js';
import type { GridWriter, WriteOptions } from './write-line/write-line.js';

export type { GridServiceOptions } from './wiring.js';
export type { MoveOutcome } from './operations/move.js';
export type { NotInvited } from './operations/invitations.js';

type OperationPorts = ServiceDeps & {
  readonly flags: Flags;
  readonly moveRate: MoveRateLimiter | undefined;
  readonly postCache: PostCache | undefined;
};

export class GridService {
  /** The stores and seams tests and benchmarks inspect; operations get them through `ports`. */
  readonly store: GridStore;
  readonly posts: PostsStore;
  readonly membership: MembershipStore;
  readonly reader: CassandraGridReader;
  readonly writer: GridWriter;
  readonly caches: ServiceCaches | undefined;
  /** Operational flags (kill switch, reorder writes), polled from Cassandra. */
  readonly flags: Flags;
  /** Reordered copies of profiles with many overrides (read/copy-builder.ts). */
  readonly copies: CopyBuilder;
  /** A platform's own services: registered posts and imports (platform-posts.ts). */
  readonly platform: PlatformPosts;
  /**
   * The one read entry (rendered-read.ts): pages as the response sends them (`read`), and
   * the plain page read beneath them (`page`).
   */
  readonly pages: RenderedRead;
  /** The change log and its stream (changes/changes.ts). */
  readonly changes: ChangeStream;
  private readonly pageReader: (q: PageQuery) => Promise<GridPage>;
  /** Every operation's ports: the stores, the flags, Redis's move rate limit and post cache. */
  private readonly ports: OperationPorts;

  constructor(opts: GridServiceOptions) {
    const w = wireService(opts, (q) => this.pageReader(q));
    this.store = w.store;
    this.posts = w.posts;
    this.membership = w.membership;
    this.reader = w.reader;
    this.writer = w.writer;
    this.caches = w.caches;
    this.flags = w.flags;
    this.copies = w.copies;
    this.changes = w.changes;
    this.pageReader = w.pageReader;
    this.pages = w.renderedRead;
    const { moveRate, posts } = w.caches ?? {};
    this.ports = { ...w.deps, flags: w.flags, moveRate, postCache: posts };
    this.platform = new PlatformPosts(this.ports);
    this.move = movePost.bind(undefined, this.ports);
  }

  // --- writes: each one line into its operation ----------------------------------------------

  /**
   * The move is the operation itself, bound to the ports at construction: a call goes straight
   * into operations/move.ts (the move walk in docs/architecture.md does not pass through here).
   */
  readonly move: (
    profileId: bigint,
    postId: bigint,
    after: bigint | null,
    options?: MoveOptions,
  ) => Promise<MoveOutcome>;

  undoMove(profileId: bigint, moveId: string, options?: WriteOptions) {
    return undoMove(this.ports, profileId, moveId, options);
  }

  /** A post on the author's grid; named collaborators are invited (operations/create.ts). */
  createPost(authorId: bigint, input: NewPost, options?: WriteOptions) {
    return createPost(this.ports, authorId, input, options);
  }

  deletePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return deletePost(this.ports, profileId, postId, options);
  }

  setPins(profileId: bigint, postIds: readonly bigint[], options?: WriteOptions) {
    return setPins(this.ports, profileId, postIds, options);
  }

  archivePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return archive.archivePost(this.ports, profileId, postId, options);
  }

  unarchivePost(
    profileId: bigint,
    postId: bigint,
    position: archive.UnarchivePosition,
    options?: WriteOptions,
  ) {
    return archive.unarchivePost(this.ports, profileId, postId, position, options);
  }

  reset(profileId: bigint, options?: WriteOptions) {
    return resetGrid(this.ports, profileId, options);
  }

  patchOrder(
    profileId: bigint,
    ifMatch: string | undefined,
    request: BatchOrderRequest,
    options?: WriteOptions,
  ) {
    return patchOrder(this.ports, profileId, ifMatch, request, options);
  }

  acceptInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return collab.acceptInvite(this.ports, profileId, postId, options);
  }

  declineInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return collab.declineInvite(this.ports, profileId, postId, options);
  }

  removeCollaborator(actorId: bigint, postId: bigint, collabId: bigint, options?: WriteOptions) {
    return collab.removeCollaborator(this.ports, actorId, postId, collabId, options);
  }

  /** `profileId` takes no more invitations from `authorId`; pending ones are dropped. */
  blockAuthor(profileId: bigint, authorId: bigint, scope?: StatementScope) {
    return invitations.blockAuthor(this.ports, profileId, authorId, scope);
  }

  unblockAuthor(profileId: bigint, authorId: bigint, scope?: StatementScope) {
    return invitations.unblockAuthor(this.ports, profileId, authorId, scope);
  }

  takedown(postId: bigint, scope?: StatementScope) {
    return takedownPost(this.ports, postId, scope);
  }

  // --- reads (one-line delegations as properties: the operations live in read/ and ops/) ------

  /** The body as stored, whoever may see it (tools and tests; readers get `readPost`). */
  async getPost(postId: bigint): Promise<PostRecord> {
    const post = await this.posts.getPost(postId);
    if (!post || post.removedAt)
      throw new DomainError('post_not_found', 'no such post', { post_id: postId.toString() });
    return post;
  }

  /** The first page's order from Cassandra, pins first, no cache: what the load tester checks. */
  firstPageOrder(profileId: bigint, limit: number): Promise<bigint[]> {
    return readFirstPageOrder(this.reader, profileId, limit);
  }

  /** The grid's head (version, generation, pins, count), rolled forward, from Cassandra. */
  readonly readHead = (profileId: bigint): Promise<GridHead> => this.reader.readHead(profileId);

  /** The head with the idempotency request ring (the Idempotency-Key pre-check). */
  readonly readRequestRing = (profileId: bigint): Promise<GridHead> =>
    this.store.readHead(profileId, {}, 'keyed');

  /** The editor's resource: hidden with the arrangement it edits (docs/ops/rollout.md). */
  readOrder(profileId: bigint) {
    return readOrder(this.ports, profileId);
  }

  /** One post as `viewer` (a profile; undefined = anyone) may see it (read/post-view.ts). */
  readonly readPost = (postId: bigint, viewer?: bigint) => readPost(this.ports, postId, viewer);
  /** Posts of a listing with the collaborators each may be shown with (read/post-view.ts). */
  readonly showPosts = (posts: readonly PostRecord[]) => showPosts(this.ports, posts);
  readonly listMedia = (q: MediaQuery) => listMedia(this.ports, q);
  readonly listArchive = (profileId: bigint, limit: number, before?: bigint) =>
    archive.listArchive(this.ports, profileId, limit, before);
  readonly listInvites = (profileId: bigint) => collab.listInvites(this.ports, profileId);
  readonly auditProfile = (profileId: bigint) => auditProfile(this.ports, profileId);
  readonly auditAll = (only?: readonly bigint[]) => auditAll(this.ports, only);
}
