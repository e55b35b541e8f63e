/**
 * The grid service: what the HTTP layer (and CLIs) call. It wires the stores, the single write
 * path (GridWriter.writeGrid) and the read path (CassandraGridReader) together; each operation's
 * logic lives in its own module (move.ts, posts-service.ts, read-page.ts).
 *
 * Other features extend this by adding planners that run through `writer.writeGrid` (pins,
 * archive, reset, batch order, collaborators, takedown) and hooks on `writer.hooks` (cache).
 */
import { createServiceCaches } from '../cache/caches.js';
import type { ServiceCaches } from '../cache/caches.js';
import type { GridCacheSettings } from '../cache/grid-cache.js';
import type { RedisGuard } from '../cache/redis.js';
import type { Config } from '../config.js';
import type { RelabelPolicy } from '../domain/keys.js';
import type { Cql } from '../store/cassandra.js';
import { consistencyOf } from '../store/cassandra.js';
import { ArchiveStore } from '../store/archive-store.js';
import { GridStore } from '../store/grid-store.js';
import { InvitesStore } from '../store/invites-store.js';
import { MembershipStore } from '../store/membership-store.js';
import { PostsStore, type PostRecord } from '../store/posts-store.js';
import { CassandraGridReader } from './grid-reader.js';
import {
  GridWriter,
  writerSettingsOf,
  type WriteOptions,
  type WriterHooks,
} from './grid-writer.js';
import { assertMoveRequest, movePlanner, type MovePlanHook } from './move.js';
import * as postsOps from './posts-service.js';
import type { NewPost, PostWriteResult } from './posts-service.js';
import { createPageCache, type PageCache } from './page-cache.js';
import { readGridPage, type GridPage, type PageQuery } from './read-page.js';

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
}

export interface MoveOutcome {
  readonly version: bigint;
  readonly generation: bigint;
  readonly relabelled: number;
}

export class GridService {
  readonly store: GridStore;
  readonly posts: PostsStore;
  readonly archive: ArchiveStore;
  readonly invites: InvitesStore;
  readonly membership: MembershipStore;
  readonly reader: CassandraGridReader;
  readonly writer: GridWriter;
  readonly caches: ServiceCaches | undefined;
  private readonly pageCache: PageCache | undefined;
  private readonly cursorSecret: string;
  private readonly policy: RelabelPolicy;
  private readonly ids: IdSource;

  constructor(opts: GridServiceOptions) {
    const consistency = consistencyOf(opts.config);
    this.store = new GridStore(opts.cql, consistency);
    this.posts = new PostsStore(opts.cql, consistency);
    this.archive = new ArchiveStore(opts.cql, consistency);
    this.invites = new InvitesStore(opts.cql, consistency);
    this.membership = new MembershipStore(opts.cql, consistency);
    this.reader = new CassandraGridReader(this.store, this.posts, this.membership, consistency);
    this.caches = opts.redis
      ? createServiceCaches(opts.config, opts.redis, this.reader, opts.cacheTuning)
      : undefined;
    this.pageCache = this.caches && createPageCache(this.caches);
    const grid = this.caches?.grid;
    // After every commit (any write path): store the new state's order, then drop the summary.
    const hooks: WriterHooks = grid
      ? {
          ...opts.hooks,
          onCommitted: [
            ...(opts.hooks?.onCommitted ?? []),
            (e) => grid.afterGridWrite(e.profileId),
          ],
        }
      : (opts.hooks ?? {});
    this.writer = new GridWriter(this.store, this.membership, writerSettingsOf(opts.config), hooks);
    this.cursorSecret = opts.cursorSecret;
    this.policy = opts.policy ?? opts.config.RELABEL_POLICY;
    this.ids = opts.ids;
  }

  /** Dependencies the operation modules share. */
  get deps(): postsOps.PostsServiceDeps {
    return {
      store: this.store,
      reader: this.reader,
      posts: this.posts,
      writer: this.writer,
      archive: this.archive,
      invites: this.invites,
      membership: this.membership,
      nextId: () => this.ids.next(),
      policy: this.policy,
    };
  }

  createPost(
    profileId: bigint,
    input: NewPost,
    options?: WriteOptions,
  ): Promise<PostWriteResult<PostRecord>> {
    return postsOps.createPost(this.deps, profileId, input, options);
  }

  async deletePost(
    profileId: bigint,
    postId: bigint,
    options?: WriteOptions,
  ): Promise<PostWriteResult<null>> {
    const out = await postsOps.deletePost(this.deps, profileId, postId, options);
    await this.caches?.posts.forget([postId]);
    return out;
  }

  getPost(postId: bigint): Promise<PostRecord> {
    return postsOps.getPost(this.deps, postId);
  }

  async move(
    profileId: bigint,
    postId: bigint,
    after: bigint | null,
    options?: WriteOptions,
    onPlanned?: MovePlanHook,
  ): Promise<MoveOutcome> {
    assertMoveRequest(postId, after);
    // Over the limit → DomainError('rate_limited') (429 + Retry-After); fails open without Redis.
    await this.caches?.moveRate.consume(profileId);
    const out = await this.writer.writeGrid(
      profileId,
      movePlanner(this.deps, postId, after, onPlanned),
      options,
    );
    return { version: out.version, generation: out.generation, relabelled: out.result.relabelled };
  }

  readPage(q: PageQuery): Promise<GridPage> {
    return readGridPage(this.reader, this.cursorSecret, q, this.pageCache);
  }
}
