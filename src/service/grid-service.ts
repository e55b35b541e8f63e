/**
 * The service: the one surface the HTTP layer, the CLIs, the load tester and the benchmarks call.
 * Built once (src/main.ts, or a test harness): wiring.ts constructs every store once, the single write
 * path (GridWriter.writeGrid), the reader, and the Redis caches when given, and hands the same
 * dependencies (deps.ts) to every operation. Each operation's logic lives in its own module; this
 * class only names them.
 *
 * Writes: ops/ (move, posts, pins, archive, reset, batch order, invitations and collaborators,
 * undo, takedown). Reads: read/ (pages, media, audit), the order resource, the listings.
 */
import type { ServiceCaches } from '../cache/caches.js';
import type { BatchOrderRequest } from '../domain/batch-order.js';
import type { CassandraGridReader } from '../store/grid-reader.js';
import type { GridHead, GridStore } from '../store/grid-store.js';
import type { MembershipStore } from '../store/membership-store.js';
import type { PostRecord, PostsStore } from '../store/posts-store.js';
import type { ServiceDeps } from './deps.js';
import type { Flags } from './flags.js';
import * as archive from './ops/archive.js';
import { patchOrder, readOrder } from './ops/batch-order.js';
import * as collab from './ops/collaborators.js';
import * as invitations from './ops/invitations.js';
import { movePost, type MoveOptions, type MoveOutcome } from './ops/move.js';
import { setPins } from './ops/pins.js';
import * as postsOps from './ops/posts.js';
import type { NewPost, PostWriteResult } from './ops/posts.js';
import { PlatformPosts } from './platform-posts.js';
import { resetGrid } from './ops/reset.js';
import { takedownPost } from './ops/takedown.js';
import { undoMove } from './ops/undo.js';
import { auditAll, auditProfile } from './read/audit.js';
import { listMedia, type MediaQuery } from './read/media.js';
import type { ReadChecks } from './read/read-checks.js';
import type { GridPage, PageQuery } from './read/read-page.js';
import type { RenderedRead } from './read/rendered-read.js';
import type { CopyBuilder } from './read/copy-builder.js';
import { wireService, type GridServiceOptions } from './wiring.js';
import type { GridWriter, WriteOptions } from './write/grid-writer.js';
import { trackOp } from './write/write-op.js';

export type { GridServiceOptions } from './wiring.js';
export type { MoveOutcome } from './ops/move.js';
export type { NotInvited } from './ops/invitations.js';

export class GridService {
  /** The stores and seams tests and benchmarks inspect; operations get them through `deps`. */
  readonly store: GridStore;
  readonly posts: PostsStore;
  readonly membership: MembershipStore;
  readonly reader: CassandraGridReader;
  readonly writer: GridWriter;
  readonly caches: ServiceCaches | undefined;
  /** Operational flags (kill switch, reorder writes), polled from Cassandra. */
  readonly flags: Flags;
  /** Shadow reads and cache sampling beside the page read. */
  readonly checks: ReadChecks;
  /** Reordered copies of profiles with many overrides (read/copy-builder.ts). */
  readonly copies: CopyBuilder;
  /** A platform's own services: registered posts and imports (platform-posts.ts). */
  readonly platform: PlatformPosts;
  /** Pages as the response sends them: the HTTP layer's one read contract (rendered-read.ts). */
  readonly pages: RenderedRead;
  private readonly pageReader: (q: PageQuery) => Promise<GridPage>;
  private readonly deps: ServiceDeps;

  constructor(opts: GridServiceOptions) {
    const w = wireService(opts, (q) => this.readPage(q));
    this.store = w.store;
    this.posts = w.posts;
    this.membership = w.membership;
    this.reader = w.reader;
    this.writer = w.writer;
    this.caches = w.caches;
    this.flags = w.flags;
    this.checks = w.checks;
    this.copies = w.copies;
    this.pageReader = w.pageReader;
    this.pages = w.renderedRead;
    this.deps = w.deps;
    this.platform = new PlatformPosts(w.deps, w.caches);
  }

  // --- writes ------------------------------------------------------------------------------

  async move(
    profileId: bigint,
    postId: bigint,
    after: bigint | null,
    options?: MoveOptions,
  ): Promise<MoveOutcome> {
    const deps = { ...this.deps, moveRate: this.caches?.moveRate };
    return trackOp('move', async () => {
      await this.flags.require('writes.reorder');
      return movePost(deps, profileId, postId, after, options);
    });
  }

  undoMove(profileId: bigint, moveId: string, options?: WriteOptions) {
    return trackOp('undo', async () => {
      await this.flags.require('writes.reorder');
      return undoMove(this.deps, profileId, moveId, options);
    });
  }

  /** A post on the author's grid; named collaborators are invited (collaborators.ts). */
  createPost(
    authorId: bigint,
    input: NewPost & { readonly collaborators?: readonly bigint[] },
    options?: WriteOptions,
  ): Promise<PostWriteResult<PostRecord> & { notInvited: readonly invitations.NotInvited[] }> {
    const collaborators = input.collaborators ?? [];
    if (collaborators.length === 0)
      return trackOp('create', () => postsOps.createPost(this.deps, authorId, input, options)).then(
        (r) => ({ ...r, notInvited: [] }),
      );
    return trackOp('create', () =>
      collab.createCollabPost(this.deps, authorId, { ...input, collaborators }, options),
    ).then((r) => ({
      value: r.post,
      notInvited: r.notInvited,
      version: r.version,
      generation: r.generation,
    }));
  }

  async deletePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    const out = await trackOp('delete', () =>
      postsOps.deletePost(this.deps, profileId, postId, options),
    );
    await this.caches?.posts.forget([postId]);
    return out;
  }

  setPins(profileId: bigint, postIds: readonly bigint[], options?: WriteOptions) {
    return trackOp('pins', () => setPins(this.deps, profileId, postIds, options));
  }

  archivePost(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return trackOp('archive', () => archive.archivePost(this.deps, profileId, postId, options));
  }

  unarchivePost(
    profileId: bigint,
    postId: bigint,
    position: archive.UnarchivePosition,
    options?: WriteOptions,
  ) {
    return trackOp('unarchive', () =>
      archive.unarchivePost(this.deps, profileId, postId, position, options),
    );
  }

  reset(profileId: bigint, options?: WriteOptions) {
    return trackOp('reset', async () => {
      await this.flags.require('writes.reorder');
      return resetGrid(this.deps, profileId, options);
    });
  }

  async patchOrder(
    profileId: bigint,
    ifMatch: string | undefined,
    request: BatchOrderRequest,
    options?: WriteOptions,
  ) {
    return trackOp('batch_order', async () => {
      await this.flags.require('writes.reorder');
      return patchOrder(this.deps, profileId, ifMatch, request, options);
    });
  }

  acceptInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return trackOp('accept', () => collab.acceptInvite(this.deps, profileId, postId, options));
  }

  declineInvite(profileId: bigint, postId: bigint, options?: WriteOptions) {
    return trackOp('decline', () => collab.declineInvite(this.deps, profileId, postId, options));
  }

  removeCollaborator(
    actorId: bigint,
    postId: bigint,
    collaboratorId: bigint,
    options?: WriteOptions,
  ) {
    return trackOp('remove_collaborator', () =>
      collab.removeCollaborator(this.deps, actorId, postId, collaboratorId, options),
    );
  }

  /** `profileId` takes no more invitations from `authorId`; pending ones are dropped. */
  blockAuthor(profileId: bigint, authorId: bigint) {
    return invitations.blockAuthor(this.deps, profileId, authorId);
  }

  unblockAuthor(profileId: bigint, authorId: bigint) {
    return invitations.unblockAuthor(this.deps, profileId, authorId);
  }

  async takedown(postId: bigint) {
    const out = await trackOp('takedown', () => takedownPost(this.deps, postId));
    await this.caches?.posts.forget([postId]);
    return out;
  }

  // --- reads (one-line delegations as properties: the operations live in read/ and ops/) ------

  readonly getPost = (postId: bigint): Promise<PostRecord> => postsOps.getPost(this.deps, postId);

  /** A page of the grid (through the caches when there are): items, cursor, state. */
  readonly readPage = (q: PageQuery): Promise<GridPage> => this.pageReader(q);

  /** The first page's order from Cassandra, pins first, no cache: what the load tester checks. */
  async firstPageOrder(profileId: bigint, limit: number): Promise<bigint[]> {
    const head = await this.reader.readHead(profileId);
    const entries = await this.reader.readFirstEntries(profileId, head, limit);
    return [...head.pins, ...entries.map((e) => e.postId)];
  }

  /** The grid's head (version, generation, pins, count), rolled forward, from Cassandra. */
  readonly readHead = (profileId: bigint): Promise<GridHead> => this.reader.readHead(profileId);

  /** The head with the idempotency request ring (the Idempotency-Key pre-check). */
  readonly readRequestRing = (profileId: bigint): Promise<GridHead> =>
    this.store.readHead(profileId, {}, true);

  /** The editor's resource: hidden with the arrangement it edits (docs/ops/rollout.md). */
  async readOrder(profileId: bigint) {
    await this.flags.require('reads.overrides');
    return readOrder(this.deps, profileId);
  }

  readonly listMedia = (q: MediaQuery) => listMedia(this.deps, q);
  readonly listArchive = (profileId: bigint, limit: number, before?: bigint) =>
    archive.listArchive(this.deps, profileId, limit, before);
  readonly listInvites = (profileId: bigint) => collab.listInvites(this.deps, profileId);
  readonly auditProfile = (profileId: bigint) => auditProfile(this.deps, profileId);
  readonly auditAll = (only?: readonly bigint[]) => auditAll(this.deps, only);
}
