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
import type { NotNow, RenderedRead, RenderPage } from './read/rendered-read.js';
import type { CopyBuilder } from './read/copy-builder.js';
import type { RenderedPage } from '../cache/rendered-pages.js';
import { wireService, type GridServiceOptions } from './wiring.js';
import type { ChangeStream } from './changes/changes.js';
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
  /** The change log and its stream (changes/changes.ts). */
  readonly changes: ChangeStream;
  private readonly pageReader: (q: PageQuery) => Promise<GridPage>;
  private readonly renderedRead: RenderedRead;
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
    this.changes = w.changes;
    this.pageReader = w.pageReader;
    this.renderedRead = w.renderedRead;
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

  // --- reads -------------------------------------------------------------------------------

  getPost(postId: bigint): Promise<PostRecord> {
    return postsOps.getPost(this.deps, postId);
  }

  readPage(q: PageQuery): Promise<GridPage> {
    return this.pageReader(q);
  }

  /**
   * A page as the response sends it (body + ETag): first pages from the rendered-page tiers when
   * they hold the current state, else read and rendered with `render` (read/rendered-read.ts).
   */
  readRenderedPage(q: PageQuery, render: RenderPage, sampled?: boolean): Promise<RenderedPage> {
    return this.renderedRead(q, render, sampled);
  }

  /** The same first page without waiting when the process-local tier holds it (`now` there). */
  renderedPageNow(q: PageQuery): RenderedPage | NotNow {
    return this.renderedRead.now(q);
  }

  /**
   * The first page's order straight from Cassandra, pins first, no bodies and no cache: what the
   * load tester traces and checks a page read against.
   */
  async firstPageOrder(profileId: bigint, limit: number): Promise<bigint[]> {
    const head = await this.reader.readHead(profileId);
    const entries = await this.reader.readFirstEntries(profileId, head, limit);
    return [...head.pins, ...entries.map((e) => e.postId)];
  }

  /** The grid's head (version, generation, pins, count), rolled forward, from Cassandra. */
  readHead(profileId: bigint): Promise<GridHead> {
    return this.reader.readHead(profileId);
  }

  /** The head with the idempotency request ring (the Idempotency-Key pre-check). */
  readRequestRing(profileId: bigint): Promise<GridHead> {
    return this.store.readHead(profileId, {}, true);
  }

  /** The editor's resource: hidden with the arrangement it edits (docs/ops/rollout.md). */
  async readOrder(profileId: bigint) {
    await this.flags.require('reads.overrides');
    return readOrder(this.deps, profileId);
  }

  listMedia(q: MediaQuery) {
    return listMedia(this.deps, q);
  }

  listArchive(profileId: bigint, limit: number, before?: bigint) {
    return archive.listArchive(this.deps, profileId, limit, before);
  }

  listInvites(profileId: bigint) {
    return collab.listInvites(this.deps, profileId);
  }

  auditProfile(profileId: bigint) {
    return auditProfile(this.deps, profileId);
  }

  auditAll(only?: readonly bigint[]) {
    return auditAll(this.deps, only);
  }
}
