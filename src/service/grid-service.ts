/**
 * The service: the one surface the HTTP layer, the CLIs, the load tester and the benchmarks call.
 * Built once (src/main.ts, or a test harness): it constructs every store once, the single write
 * path (GridWriter.writeGrid), the reader, and the Redis caches when given, and hands the same
 * dependencies (deps.ts) to every operation. Each operation's logic lives in its own module; this
 * class only names them.
 *
 * Writes: ops/ (move, posts, pins, archive, reset, batch order, invitations and collaborators,
 * undo, takedown). Reads: read/ (pages, media, audit), the order resource, the listings.
 */
import { createServiceCaches } from '../cache/caches.js';
import { cachedPageSource } from '../cache/page-source.js';
import type { PageSource } from '../domain/grid-source.js';
import type { ServiceCaches } from '../cache/caches.js';
import type { GridCacheSettings } from '../cache/grid-cache.js';
import type { RedisGuard } from '../cache/redis.js';
import type { Config } from '../config.js';
import type { BatchOrderRequest } from '../domain/batch-order.js';
import type { RelabelPolicy } from '../domain/keys.js';
import { ArchiveStore } from '../store/archive-store.js';
import type { Cql } from '../store/cassandra.js';
import { consistencyOf } from '../store/cassandra.js';
import { GridStore, type GridHead } from '../store/grid-store.js';
import { InvitesStore } from '../store/invites-store.js';
import { MembershipStore } from '../store/membership-store.js';
import { MovesStore } from '../store/moves-store.js';
import { PostsStore, type PostRecord } from '../store/posts-store.js';
import { ProfilesStore } from '../store/profiles-store.js';
import * as archive from './ops/archive.js';
import { auditAll, auditProfile } from './read/audit.js';
import { patchOrder, readOrder } from './ops/batch-order.js';
import * as collab from './ops/collaborators.js';
import type { ServiceDeps } from './deps.js';
import { CassandraGridReader } from '../store/grid-reader.js';
import {
  GridWriter,
  writerSettingsOf,
  type WriteOptions,
  type WriterHooks,
} from './write/grid-writer.js';
import { listMedia, type MediaQuery } from './read/media.js';
import { movePost, type MoveOptions, type MoveOutcome } from './ops/move.js';
import { setPins } from './ops/pins.js';
import * as postsOps from './ops/posts.js';
import type { NewPost, PostWriteResult } from './ops/posts.js';
import type { GridPage, PageQuery } from './read/read-page.js';
import { createReadChecks, type ReadChecks } from './read/read-checks.js';
import { createPageReader } from './read/read-mode.js';
import { flagsOf, type Flags } from './flags.js';
import { resetGrid } from './ops/reset.js';
import { takedownPost } from './ops/takedown.js';
import { undoMove } from './ops/undo.js';
import { trackOp } from './write/write-op.js';

export interface IdSource {
  next(): bigint;
}

export interface GridServiceOptions {
  readonly cql: Cql;
  readonly config: Config;
  readonly ids: IdSource;
  readonly cursorSecret: string;
  readonly hooks?: WriterHooks;
  readonly policy?: RelabelPolicy;
  /** Redis: read cache, post-commit refill/invalidation, move rate limit. Optional. */
  readonly redis?: RedisGuard;
  /** Test/benchmark seams of the grid cache (race hooks, bypass, leases). */
  readonly cacheTuning?: Partial<GridCacheSettings>;
  /** Share another service's flags (a second service over a tracing Cql must not read them). */
  readonly flags?: Flags;
  /** Where shadow-read and cache-sample mismatches are described (default: a stderr line). */
  readonly checkLog?: (message: string, fields: Record<string, unknown>) => void;
}

export type { MoveOutcome } from './ops/move.js';

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
  /** What pages are read from: the Cassandra reader, decorated by the cache when there is one. */
  private readonly pages: PageSource;
  private readonly pageReader: (q: PageQuery) => Promise<GridPage>;
  private readonly deps: ServiceDeps;

  constructor(opts: GridServiceOptions) {
    const { cql, config } = opts;
    const consistency = consistencyOf(config);
    this.store = new GridStore(cql, consistency);
    this.posts = new PostsStore(cql, consistency);
    this.membership = new MembershipStore(cql, consistency);
    this.reader = new CassandraGridReader(this.store, this.posts, this.membership, consistency);
    this.caches = opts.redis
      ? createServiceCaches(config, opts.redis, this.reader, opts.cacheTuning)
      : undefined;
    this.pages = this.caches ? cachedPageSource(this.caches, this.reader) : this.reader;
    const grid = this.caches?.grid;
    // After every commit (any write path): store the new state's order, then drop the summary.
    // The caller's hooks object itself, so seams installed on it later (tests) still take effect.
    const hooks: WriterHooks = opts.hooks ?? {};
    if (grid)
      hooks.onCommitted = [...(hooks.onCommitted ?? []), (e) => grid.afterGridWrite(e.profileId)];
    this.writer = new GridWriter(this.store, this.membership, writerSettingsOf(config), hooks);
    this.flags = opts.flags ?? flagsOf(cql, config);
    this.checks = createReadChecks(this.reader, {
      shadowSample: config.SHADOW_READ_SAMPLE,
      cacheSample: config.CACHE_SAMPLE_RATE,
      ...(opts.checkLog ? { log: opts.checkLog } : {}),
    });
    this.pageReader = createPageReader(
      this.pages,
      this.reader,
      opts.cursorSecret,
      this.flags,
      this.checks,
    );
    this.deps = {
      store: this.store,
      reader: this.reader,
      posts: this.posts,
      writer: this.writer,
      archive: new ArchiveStore(cql, consistency),
      invites: new InvitesStore(cql, consistency),
      membership: this.membership,
      // Undo stays possible as long as the move's Idempotency-Key would be remembered.
      moves: new MovesStore(cql, consistency, config.IDEMPOTENCY_TTL_S),
      profiles: new ProfilesStore(cql, consistency),
      nextId: () => opts.ids.next(),
      policy: opts.policy ?? config.RELABEL_POLICY,
      readPage: (q) => this.readPage(q),
    };
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
  ): Promise<PostWriteResult<PostRecord>> {
    const collaborators = input.collaborators ?? [];
    if (collaborators.length === 0)
      return trackOp('create', () => postsOps.createPost(this.deps, authorId, input, options));
    return trackOp('create', () =>
      collab.createCollabPost(this.deps, authorId, { ...input, collaborators }, options),
    ).then((r) => ({ value: r.post, version: r.version, generation: r.generation }));
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
