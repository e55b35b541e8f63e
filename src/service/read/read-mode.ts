/**
 * The page read as the service runs it: which order (the `reads.overrides` kill switch), through
 * which source, and the sampled checks beside it (read-checks.ts).
 *
 * With reads.overrides off, a page is read from a chronological view: the head from Cassandra,
 * no override rows (so every post sits at its ID, pins still first), no cached order; post bodies
 * still come through the post cache.
 *
 * Cache: the chronological view gets its own (empty) key space rather than a read-side
 * generation bump. The cached orders (`grid:{p}:g…:v…`) hold the merged order of one grid state
 * and stay correct for it; bumping a generation to hide them would have to be undone (or leave
 * every grid cold) when reading comes back, and would race with fillers. The chronological view
 * never reads the order keys nor fills them (a fill runs the very override read being switched
 * off): it costs one head read and one slice of grid_posts (limit + 1 rows of one partition) per
 * first page. Writes meanwhile keep refilling the normal keys for their new versions, so once the
 * switch is back on every grid reads exactly its arrangement, from the cache when warm. Cursors
 * say which order they belong to (domain/cursor.ts), so neither mode misreads the other's.
 */
import type { PageSource } from '../../domain/grid-source.js';
import type { CassandraGridReader } from '../../store/grid-reader.js';
import type { Flags } from '../flags.js';
import type { ReadChecks } from './read-checks.js';
import { readGridPage, type GridPage, type PageQuery } from './read-page.js';

/** What a page reads when overrides are switched off; `bodies`: the (cached) body source. */
function chronologicalView(reader: CassandraGridReader, bodies: PageSource): PageSource {
  return {
    head: (profileId, minVersion) => reader.head(profileId, minVersion),
    overrides: async (profileId, head) => ({
      head: head ?? (await reader.readHead(profileId)),
      rows: [],
    }),
    current: (profileId) => reader.current(profileId),
    entries: (profileId, _overrides, query) => reader.entries(profileId, [], query),
    hydrate: (postIds, known) => bodies.hydrate(postIds, known),
  };
}

export function createPageReader(
  source: PageSource,
  reader: CassandraGridReader,
  cursorSecret: string,
  flags: Flags,
  checks: ReadChecks,
): (q: PageQuery) => Promise<GridPage> {
  const merged = checks.sampleCacheHits(source);
  const plain = chronologicalView(reader, source);
  return async (q) => {
    if (!(await flags.isEnabled('reads.overrides'))) {
      return readGridPage(plain, cursorSecret, q, true);
    }
    const page = await readGridPage(merged, cursorSecret, q);
    if (!q.cursor) checks.afterFirstPage(q, page);
    return page;
  };
}
