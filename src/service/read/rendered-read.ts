/**
 * The service's page read and the HTTP layer's one read contract (`RenderedRead`): a grid page
 * as the response sends it, the rendered body and its strong ETag.
 *
 * A first page goes through the page cache (cache/grid-cache.ts `read`, the one read-through):
 * `read`, run by the grid route (http/routes/grid.ts), is answered from Redis, or on a miss the
 * page read (read-page.ts) runs, under the request deadline the route hands in (`ReachStore`),
 * and its rendering is kept under the state the page is labelled with, which it is exactly.
 * Later pages are read and rendered under that deadline.
 *
 * The kill switch (reads.overrides off) skips the cache both ways, and the page is read from a
 * chronological view (`createPageReader`): a chronological page is not the grid's arrangement and
 * must not be kept under its state.
 *
 * Chronological view (docs/ops/rollout.md): the head from Cassandra, no override rows (every post
 * sits at its ID, pins still first); post bodies still come through the post cache. Cursors say
 * which order they belong to (domain/cursor.ts), so neither mode misreads the other's.
 */
import { createHash } from 'node:crypto';
import type { GridCache, RenderedPage } from '../../cache/grid-cache.js';
import { firstPageReads } from '../../obs/metrics.js';
import type { GridReads } from '../../domain/grid-source.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { StatementScope } from '../../store/statement-scope.js';
import type { Flags } from '../flags.js';
import { readGridPage, type GridPage, type PageQuery } from './read-page.js';

/** The caller's view of a page (http/views.ts): the JSON text the response carries. */
export type RenderPage = (page: GridPage) => string;

/**
 * How a request runs the part of a read that reaches Cassandra: under its deadline, with its
 * statement scope (http/deadline.ts `storeDeadline`). Called only on the way to Cassandra, so a
 * page answered from Redis arms no deadline.
 */
export type ReachStore = <T>(work: (scope: StatementScope | undefined) => Promise<T>) => Promise<T>;

export interface RenderedRead {
  /**
   * Any page: a first page through the cache, else read and rendered with `render`; what reaches
   * Cassandra runs through `reach` (by default with `q.scope`).
   */
  read(q: PageQuery, render: RenderPage, reach?: ReachStore): Promise<RenderedPage>;
  /** The page read beneath the cache, unrendered (what `read` runs on a miss): audit, tools. */
  page(q: PageQuery): Promise<GridPage>;
}

/** Strong validator of a body: 128 bits of its SHA-256, quoted as HTTP wants it. */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export function createRenderedRead(
  readPage: (q: PageQuery) => Promise<GridPage>,
  cache: Pick<GridCache, 'read'> | undefined,
  flags: Pick<Flags, 'held' | 'isEnabled'>,
): RenderedRead {
  const fill = async (q: PageQuery, render: RenderPage) => {
    const page = await readPage(q);
    const body = render(page);
    const { generation, version, chronological } = page;
    return { page: { generation, version, body, etag: etagOf(body) }, keep: !chronological };
  };
  /** A first page through the cache, where only a miss reaches Cassandra; else read. */
  const through = (q: PageQuery, render: RenderPage, overrides: boolean, reach: ReachStore) => {
    const first = q.cursor === undefined;
    if (cache && first && overrides) {
      return cache.read(q.profileId, q.limit, q.minVersion, () =>
        reach((scope) => fill({ ...q, scope }, render)),
      );
    }
    if (first) firstPageReads.inc({ result: 'bypass' });
    return reach(async (scope) => (await fill({ ...q, scope }, render)).page);
  };
  return {
    page: readPage,
    read(q, render, reach = (work) => work(q.scope)) {
      // The kill switch as held, without a promise round (flags.ts).
      const overrides = flags.held('reads.overrides');
      if (overrides !== undefined) return through(q, render, overrides, reach);
      // Values too old to use: their refresh reads Cassandra, so it runs under `reach` too, and
      // the rest of the read inside it.
      return reach(async (scope) =>
        through(q, render, await flags.isEnabled('reads.overrides'), (work) => work(scope)),
      );
    },
  };
}

/** What a page reads when overrides are switched off; `bodies`: the (cached) body source. */
function chronologicalView(
  reader: CassandraGridReader,
  bodies: GridReads<StatementScope>,
): GridReads<StatementScope> {
  return {
    state: async (profileId, scope) => ({
      head: await reader.readHead(profileId, 'quorum', scope),
      rows: [],
    }),
    readHead: (profileId, consistency, scope) => reader.readHead(profileId, consistency, scope),
    rows: (profileId, query) => reader.rows(profileId, query),
    rollForward: (profileId, head) => reader.rollForward(profileId, head),
    hydrate: (postIds, scope) => bodies.hydrate(postIds, scope),
  };
}

/** The service's page read: which order (the kill switch). */
export function createPageReader(
  source: GridReads<StatementScope>,
  reader: CassandraGridReader,
  cursorSecret: string,
  flags: Pick<Flags, 'isEnabled'>,
): (q: PageQuery) => Promise<GridPage> {
  const plain = chronologicalView(reader, source);
  return async (q) => {
    const chronological = !(await flags.isEnabled('reads.overrides'));
    return readGridPage(chronological ? plain : source, cursorSecret, q, chronological);
  };
}
