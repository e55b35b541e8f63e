/**
 * The grid service: what the HTTP layer (and CLIs) call. It wires the stores, the single write
 * path (GridWriter.writeGrid) and the read path (CassandraGridReader) together; each operation's
 * logic lives in its own module (move.ts, posts-service.ts, read-page.ts).
 *
 * Other features extend this by adding planners that run through `writer.writeGrid` (pins,
 * archive, reset, batch order, collaborators, takedown) and hooks on `writer.hooks` (cache).
 */
import type { Config } from '../config.js';
import type { RelabelPolicy } from '../domain/keys.js';
import type { Cql } from '../store/cassandra.js';
import { consistencyOf } from '../store/cassandra.js';
import { GridStore } from '../store/grid-store.js';
import { PostsStore, type PostRecord } from '../store/posts-store.js';
import { CassandraGridReader } from './grid-reader.js';
import {
  GridWriter,
  writerSettingsOf,
  type WriteOptions,
  type WriterHooks,
} from './grid-writer.js';
import { assertMoveRequest, movePlanner } from './move.js';
import * as postsOps from './posts-service.js';
import type { NewPost, PostWriteResult } from './posts-service.js';
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
}

export interface MoveOutcome {
  readonly version: bigint;
  readonly generation: bigint;
  readonly relabelled: number;
}

export class GridService {
  readonly store: GridStore;
  readonly posts: PostsStore;
  readonly reader: CassandraGridReader;
  readonly writer: GridWriter;
  private readonly cursorSecret: string;
  private readonly policy: RelabelPolicy;
  private readonly ids: IdSource;

  constructor(opts: GridServiceOptions) {
    const consistency = consistencyOf(opts.config);
    this.store = new GridStore(opts.cql, consistency);
    this.posts = new PostsStore(opts.cql, consistency);
    this.reader = new CassandraGridReader(this.store, this.posts, consistency);
    this.writer = new GridWriter(this.store, writerSettingsOf(opts.config), opts.hooks ?? {});
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

  deletePost(
    profileId: bigint,
    postId: bigint,
    options?: WriteOptions,
  ): Promise<PostWriteResult<null>> {
    return postsOps.deletePost(this.deps, profileId, postId, options);
  }

  getPost(postId: bigint): Promise<PostRecord> {
    return postsOps.getPost(this.deps, postId);
  }

  async move(
    profileId: bigint,
    postId: bigint,
    after: bigint | null,
    options?: WriteOptions,
  ): Promise<MoveOutcome> {
    assertMoveRequest(postId, after);
    const out = await this.writer.writeGrid(
      profileId,
      movePlanner(this.deps, postId, after),
      options,
    );
    return { version: out.version, generation: out.generation, relabelled: out.result.relabelled };
  }

  readPage(q: PageQuery): Promise<GridPage> {
    return readGridPage(this.reader, this.cursorSecret, q);
  }
}
