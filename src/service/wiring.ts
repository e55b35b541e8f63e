/**
 * Builds what the service is made of, once: every store, the reader, the Redis caches (when
 * given) decorating the page source, the one writer with the cache hook, the flags and the
 * dependencies every operation module receives (deps.ts). GridService names the
 * operations; this module only wires.
 */
import { cursorKeyIdOf } from '../cache/keys.js';
import { createServiceCaches, type ServiceCaches } from '../cache/caches.js';
import type { GridCacheSettings } from '../cache/grid-cache.js';
import type { RedisGuard } from '../cache/redis.js';
import type { Config } from '../config/config.js';
import type { GridReads } from '../domain/grid-source.js';
import { ArchiveStore } from '../store/archive-store.js';
import { consistencyOf, type Cql } from '../store/cassandra.js';
import { CassandraGridReader } from '../store/grid-reader.js';
import { GridStore } from '../store/grid-store.js';
import { InviteGuardsStore } from '../store/invite-guards-store.js';
import { InvitesStore } from '../store/invites-store.js';
import { MembershipStore } from '../store/membership-store.js';
import { MovesStore } from '../store/moves-store.js';
import { PostsStore } from '../store/posts-store.js';
import { RemovedPostsStore } from '../store/removed-posts-store.js';
import { ProfilesStore } from '../store/profiles-store.js';
import type { StatementScope } from '../store/statement-scope.js';
import type { ServiceDeps } from './deps.js';
import { flagsOf, type Flags } from './flags.js';
import type { GridPage, PageQuery } from './read/read-page.js';
import { createPageReader, createRenderedRead, type RenderedRead } from './read/rendered-read.js';
import { createCopyBuilder, type CopyBuilder } from './read/copy-builder.js';
import { CopyHints, DisplayCopyStore } from '../store/display-copy-store.js';
import { GridWriter, writerSettingsOf, type WriterHooks } from './write-line/write-line.js';
import { ChangeLogStore } from '../store/change-log-store.js';
import { ChangeStream } from './changes/changes.js';

export interface IdSource {
  next(): bigint;
}

export interface GridServiceOptions {
  readonly cql: Cql;
  readonly config: Config;
  readonly ids: IdSource;
  readonly cursorSecret: string;
  readonly hooks?: WriterHooks;
  /** Redis: read cache, post-commit invalidation, move rate limit. Optional. */
  readonly redis?: RedisGuard;
  /** Test/benchmark seams of the grid cache (race hooks). */
  readonly cacheTuning?: Partial<GridCacheSettings>;
  /** Share another service's flags (a second service over a tracing Cql must not read them). */
  readonly flags?: Flags;
}

export interface Wiring {
  readonly store: GridStore;
  readonly posts: PostsStore;
  readonly membership: MembershipStore;
  readonly reader: CassandraGridReader;
  readonly writer: GridWriter;
  readonly caches: ServiceCaches | undefined;
  readonly flags: Flags;
  readonly pageReader: (q: PageQuery) => Promise<GridPage>;
  readonly renderedRead: RenderedRead;
  readonly copies: CopyBuilder;
  readonly changes: ChangeStream;
  readonly deps: ServiceDeps;
}

/** `readPage`: the service's own page read (`service.pages.page`); the audit checks what users get. */
export function wireService(
  opts: GridServiceOptions,
  readPage: (q: PageQuery) => Promise<GridPage>,
): Wiring {
  const { cql, config } = opts;
  const consistency = consistencyOf(config);
  const store = new GridStore(cql, consistency);
  const posts = new PostsStore(cql, consistency);
  const membership = new MembershipStore(cql, consistency);
  const reader = new CassandraGridReader(store, posts, membership, consistency);
  const copyStore = new DisplayCopyStore(cql, consistency);
  const hints = new CopyHints(config.COPY_MIN_OVERRIDES, (p) => copies.schedule(p));
  const copies = createCopyBuilder(reader, copyStore, {
    minOverrides: config.COPY_MIN_OVERRIDES,
    debounceMs: config.COPY_DEBOUNCE_MS,
    maxDelayMs: config.COPY_MAX_DELAY_MS,
    ...(opts.hooks?.log ? { log: opts.hooks.log } : {}),
  });
  reader.attachCopies(copyStore, hints);
  const redis = opts.redis;
  const caches =
    redis &&
    createServiceCaches(config, redis, reader, cursorKeyIdOf(opts.cursorSecret), opts.cacheTuning);
  // The page read's one port: the store's reads, with Redis the bodies through the post cache.
  // Each read hands on the request's statement scope, the post cache to its reads of misses.
  const pages: GridReads<StatementScope> = caches
    ? {
        state: (profileId, scope) => reader.state(profileId, scope),
        readHead: (profileId, consistency, scope) => reader.readHead(profileId, consistency, scope),
        rows: (profileId, query) => reader.rows(profileId, query),
        rollForward: (profileId, head) => reader.rollForward(profileId, head),
        copy: reader.copy,
        hydrate: (postIds, scope) => caches.posts.hydrate(postIds, scope),
      }
    : reader;
  const grid = caches?.grid;
  // The caller's hooks object itself, so seams installed on it later (tests) still take effect.
  const writer = new GridWriter(store, membership, writerSettingsOf(config), opts.hooks ?? {});
  // After every commit (any write path), before the write is acknowledged: the next state's
  // reordered copy for a grid with many overrides (the commit's own snapshot counts them, so a
  // small grid's commit asks nothing of the copy's hints); drop the summary and the lease
  // (grid-cache.ts).
  const minOverrides = config.COPY_MIN_OVERRIDES;
  writer.afterEachCommit((e) =>
    minOverrides > 0 && e.before.overrides.length >= minOverrides
      ? copies.schedule(e.profileId)
      : undefined,
  );
  if (grid) writer.afterEachCommit((e) => grid.invalidate(e.profileId, e.trace));
  const changes = new ChangeStream(
    new ChangeLogStore(cql, consistency),
    config,
    opts.redis,
    opts.hooks?.log,
  );
  changes.attach(writer);
  const flags = opts.flags ?? flagsOf(cql, config);
  const pageReader = createPageReader(pages, reader, opts.cursorSecret, flags);
  const renderedRead = createRenderedRead(pageReader, grid, flags);
  const deps = {
    store: store,
    reader: reader,
    posts: posts,
    writer: writer,
    archive: new ArchiveStore(cql, consistency),
    invites: new InvitesStore(cql, consistency),
    inviteGuards: new InviteGuardsStore(cql, consistency),
    // Undo stays possible as long as the move's Idempotency-Key would be remembered.
    moves: new MovesStore(cql, consistency, config.IDEMPOTENCY_TTL_S),
    profiles: new ProfilesStore(cql, consistency),
    removed: new RemovedPostsStore(cql, consistency),
    nextId: () => opts.ids.next(),
    rowCap: config.MOVE_ROW_CAP,
    readPage,
  };
  return {
    store,
    posts,
    membership,
    reader,
    writer,
    caches,
    flags,
    pageReader,
    renderedRead,
    copies,
    changes,
    deps,
  };
}
