/**
 * The service's page read and the HTTP layer's one read contract (`RenderedRead`): a grid page
 * as the response sends it, the rendered body and its strong ETag.
 *
 * A first page goes through the page cache (cache/grid-cache.ts `read`, the one read-through):
 * `read`, run by the grid route (http/routes/grid.ts) under the request deadline, is answered
 * from Redis, or on a miss the page read (read-page.ts) runs and its rendering is kept under the
 * state the page is labelled with, which it is exactly. Later pages are read and rendered.
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

export interface RenderedRead {
  /** Any page: a first page through the cache, else read and rendered with `render`. */
  read(q: PageQuery, render: RenderPage): Promise<RenderedPage>;
  /** The page read beneath the cache, unrendered (what `read` runs on a miss): audit, tools. */
  page(q: PageQuery): Promise<GridPage>;
}

/** Strong validator of a body: 128 bits of its SHA-256, quoted as HTTP wants it. */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export function createRenderedRead(
  readPage: (q: PageQuery) => Promise<GridPage>,
  cache: Pick<GridCache, 'read'> | undefined,
  flags: Pick<Flags, 'isEnabled'>,
): RenderedRead {
  const fill = async (q: PageQuery, render: RenderPage) => {
    const page = await readPage(q);
    const body = render(page);
    const { generation, version, chronological } = page;
    return { page: { generation, version, body, etag: etagOf(body) }, keep: !chronological };
  };
  return {
    page: readPage,
    async read(q, render) {
      const first = q.cursor === undefined;
      if (cache && first && (await flags.isEnabled('reads.overrides'))) {
        return cache.read(q.profileId, q.limit, q.minVersion, () => fill(q, render));
      }
      if (first) firstPageReads.inc({ result: 'bypass' });
      return (await fill(q, render)).page;
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
