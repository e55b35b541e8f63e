/**
 * One page of a profile's grid, from the page read's one port (`PageSource`): the Cassandra
 * reader (store/grid-reader.ts), or the Redis cache decorating it (cache/page-source.ts).
 *
 * Reads, in this order: the head (version, generation, pins), the overrides, then the
 * time-ordered rows streamed from the cursor's key down, merged by (effective key DESC, post ID
 * DESC). The cursor carries the last entry's (key, postId) and the version/generation of the head
 * read BEFORE the rows (design §6.1: read later, a post moved in between would look unmoved).
 *
 * Profiles with many overrides may have a reordered copy of the state (cql/016_display_copy.cql):
 * then the page seeks into it instead of reading the overrides and merging.
 *
 * Pins come first on the first page only, in addition to `limit` main-order entries; they never
 * appear in a cursor. Bodies are hydrated afterwards.
 *
 * Every page is labelled by exactly the state its items come from (version, post_count, pins):
 * a cached order or a copy is one state by construction; otherwise the override list comes with
 * the head of its own state (one query, or the `ovr:` entry of that state) and the page is that
 * state's, and the time-ordered rows, read after it, show exactly its posts only if no
 * membership write was applied meanwhile: their stamp says so (domain/grid-head.ts
 * `rowsVerdict`), or, for a grid not stamped yet, the head read after them. If not, or if a post
 * body is missing (a body is deleted only after every grid let the post go), the page is read
 * again from a head at least that new, up to PAGE_ATTEMPTS times, then 503 `contention`.
 *
 * `chronological` (the reads.overrides kill switch, service/read/read-mode.ts): the source then
 * returns no overrides and no cached order, and cursors are marked as chronological. A cursor
 * from the other mode holds a key of the other order, so it is resumed after its post's position
 * in this order (the post's ID in chronological order, its effective key otherwise) and the
 * page says grid_changed: the reader continues where they were, without skips from a foreign key.
 */
import { decodeCursor } from '../../domain/cursor.js';
import { DomainError } from '../../domain/errors.js';
import type { PageSource } from '../../domain/grid-source.js';
import type { GridVersion, MinVersion } from '../../domain/grid-version.js';
import { pageRereads } from '../../obs/metrics.js';
import { readOnce } from './page-attempt.js';
import type { GridPage, PageQuery } from './page-types.js';
import { recordPageRead } from './read-metrics.js';

export type { GridPage, PageQuery } from './page-types.js';

export const DEFAULT_PAGE_LIMIT = 24;
export const MAX_PAGE_LIMIT = 100;

/**
 * Reads of one page before answering 503 `contention`: each read after the first starts from a
 * head at least as new as the one that showed the change, after a short jittered pause (so it
 * does not run in step with a writer that keeps changing the grid).
 */
export const PAGE_ATTEMPTS = 8;

export async function readGridPage(
  source: PageSource,
  cursorSecret: string,
  q: PageQuery,
  chronological = false,
): Promise<GridPage> {
  const started = performance.now();
  const cursor = q.cursor ? decodeCursor(q.cursor, cursorSecret, q.profileId) : undefined;
  let floor: MinVersion | undefined = q.minVersion;
  let bodyFloor: GridVersion | undefined;
  let fresh: GridVersion | undefined;
  for (let attempt = 1; ; attempt++) {
    const opts = { floor, bodyFloor, fresh, chronological };
    const out = await readOnce(source, cursorSecret, q, cursor, opts);
    if ('page' in out) {
      recordPageRead(out.read, {
        firstPage: !cursor,
        fromCachedOrder: out.fast,
        fromCopy: out.copied,
        changed: out.page.gridChanged,
        seconds: (performance.now() - started) / 1000,
      });
      return out.page;
    }
    pageRereads.inc({ reason: out.reason });
    if (attempt >= PAGE_ATTEMPTS) {
      throw new DomainError('contention', 'the grid changed under every read of this page', {
        attempts: attempt,
      });
    }
    floor = out.again;
    if (out.reason === 'bodies') bodyFloor = out.again;
    // A later page needs no cached first order: it reads the store's current state next, whose
    // override list comes with its head, rather than a cached head that may lag further.
    fresh = out.reason === 'rows' && cursor ? out.again : undefined;
    if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));
  }
}
