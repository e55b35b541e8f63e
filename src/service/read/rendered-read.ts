/**
 * The service's page read and the HTTP layer's one read contract (`RenderedRead`): a grid page
 * as the response sends it, the rendered body and its strong ETag.
 *
 * First pages go through the rendered-page tiers (cache/rendered-pages.ts) before any page read:
 * `read`, run by the grid route (http/routes/grid.ts) under the request deadline, asks them,
 * then runs the page read (read-page.ts). What a read renders is kept in the tiers only when its
 * entries came from the cache entry of exactly that state (`fromStateCache`), so a rendering
 * stored under (generation, version) can only be that state's.
 *
 * The kill switch (reads.overrides off) skips the tiers both ways, and the page is read from a
 * chronological view (`createPageReader`): a chronological page is not the grid's arrangement and
 * must not be stored under its state.
 *
 * Chronological view (docs/ops/rollout.md): the head from Cassandra, no override rows (every post
 * sits at its ID, pins still first), no cached order; post bodies still come through the post
 * cache. It gets its own (empty) key space rather than a read-side generation bump: the cached
 * orders hold one state's merged order and stay correct for it, so once the switch is back on
 * every grid reads exactly its arrangement, from the cache when warm. Cursors say which order
 * they belong to (domain/cursor.ts), so neither mode misreads the other's.
 */
import { createHash } from 'node:crypto';
import type { RenderedPage, RenderedPages } from '../../cache/rendered-pages.js';
import type { GridReads } from '../../domain/grid-source.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { Flags } from '../flags.js';
import { readGridPage, type GridPage, type PageQuery } from './read-page.js';

/** The caller's view of a page (http/views.ts): the JSON text the response carries. */
export type RenderPage = (page: GridPage) => string;

export interface RenderedRead {
  /** Any page: the rendered tiers for a first page, else read and rendered with `render`. */
  read(q: PageQuery, render: RenderPage): Promise<RenderedPage>;
  /** The page read beneath the tiers, unrendered (what `read` runs on a miss): audit, tools. */
  page(q: PageQuery): Promise<GridPage>;
}

/** Strong validator of a body: 128 bits of its SHA-256, quoted as HTTP wants it. */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

export function createRenderedRead(
  readPage: (q: PageQuery) => Promise<GridPage>,
  pages: RenderedPages | undefined,
  flags: Pick<Flags, 'isEnabled'>,
): RenderedRead {
  return {
    page: readPage,
    async read(q, render) {
      const first = q.cursor === undefined;
      if (pages && first && (await flags.isEnabled('reads.overrides'))) {
        const hit = await pages.read(q.profileId, q.limit, q.minVersion);
        if (hit) return hit;
      }
      const page = await readPage(q);
      const body = render(page);
      const rendered = {
        generation: page.generation,
        version: page.version,
        body,
        etag: etagOf(body),
      };
      if (pages && first && page.fromStateCache && !page.chronological) {
        pages.remember(q.profileId, q.limit, rendered);
      }
      return rendered;
    },
  };
}

/** What a page reads when overrides are switched off; `bodies`: the (cached) body source. */
function chronologicalView(reader: CassandraGridReader, bodies: GridReads): GridReads {
  return {
    head: (profileId, minVersion) => reader.head(profileId, minVersion),
    readHead: (profileId, consistency) => reader.readHead(profileId, consistency),
    overrides: async (profileId, head) => ({
      head: head ?? (await reader.readHead(profileId)),
      rows: [],
    }),
    entries: (profileId, _overrides, query) => reader.entries(profileId, [], query),
    hydrate: (postIds, known) => bodies.hydrate(postIds, known),
  };
}

/** The service's page read: which order (the kill switch). */
export function createPageReader(
  source: GridReads,
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
