/**
 * One page of a profile's grid, from the page read's one port (`GridReads`): the Cassandra
 * reader (store/grid-reader.ts), with Redis its bodies through the post cache (wired in
 * service/wiring.ts).
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
 * a copy is one state by construction; otherwise the override list comes with the head of its
 * own state (one query) and the page is that state's, and the time-ordered rows, read after it, show exactly its posts only if no
 * membership write was applied meanwhile: their stamp says so (domain/grid-head.ts
 * `rowsVerdict`), or, for a grid not stamped yet, the head read after them. If not, or if a post
 * body is missing (a body is deleted only after every grid let the post go), the page is read
 * again from a head at least that new, up to PAGE_ATTEMPTS times, then 503 `contention`.
 *
 * `chronological` (the reads.overrides kill switch, service/read/rendered-read.ts): the source then
 * returns no overrides, and cursors are marked as chronological. A cursor
 * from the other mode holds a key of the other order, so it is resumed after its post's position
 * in this order (the post's ID in chronological order, its effective key otherwise) and the
 * page says grid_changed: the reader continues where they were, without skips from a foreign key.
 */
import { compareGridVersions, decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { resumePosition } from '../../domain/cursor-resume.js';
import { DomainError } from '../../domain/errors.js';
import {
  rowsVerdict,
  sameMembership,
  type GridHead,
  type OverrideRow,
} from '../../domain/grid-head.js';
import type { GridReads } from '../../domain/grid-source.js';
import { meetsMin, type GridVersion, type MinVersion } from '../../domain/grid-version.js';
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import { pageRereads } from '../../obs/metrics.js';
import type { StatementScope } from '../../store/statement-scope.js';
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
  source: GridReads<StatementScope>,
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
      recordPageRead({
        firstPage: !cursor,
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
    // A later page reads the store's current state next, whose override list comes with its head.
    fresh = out.reason === 'rows' && cursor ? out.again : undefined;
    if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));
  }
}

type Cursor = ReturnType<typeof decodeCursor>;

/** One read of the page: the page, or the state to read again at (the grid changed under it). */
type Attempt =
  | { readonly page: GridPage; copied: boolean }
  | { readonly again: GridVersion; readonly reason: 'rows' | 'bodies' };

/**
 * One read of the page: the head, the page's entries (a reordered copy, or the override list
 * merged with the time-ordered rows), the bodies, and whether all of it is of one
 * committed state (see the header); otherwise the state to read again at.
 */
async function readOnce(
  source: GridReads<StatementScope>,
  cursorSecret: string,
  q: PageQuery,
  cursor: Cursor | undefined,
  opts: {
    floor?: MinVersion | undefined;
    bodyFloor?: GridVersion | undefined;
    /** Read the store's current state (overrides with their head), at least this one. */
    fresh?: GridVersion | undefined;
    chronological: boolean;
  },
): Promise<Attempt> {
  const { chronological, fresh } = opts;
  const { scope } = q;
  const foreign = cursor !== undefined && (cursor.chronological ?? false) !== chronological;
  let listed: Awaited<ReturnType<GridReads<StatementScope>['overrides']>> | undefined;
  let head: GridHead;
  if (fresh) {
    listed = await source.overrides(q.profileId, undefined, scope);
    if (compareGridVersions(listed.head, fresh) < 0) return { again: fresh, reason: 'rows' };
    head = listed.head;
  } else {
    // Never below min_version (the source escalates to LOCAL_SERIAL).
    ({ head } = await source.head(q.profileId, opts.floor, scope));
  }
  const after = cursor ? { key: cursor.key, postId: cursor.postId } : undefined;
  // A reordered copy of exactly this state (profiles with many overrides): seek to the cursor,
  // no override read. Only for a cursor of this very state: another state's cursor position is
  // resumed through the overrides (cursor-resume.ts).
  const copied =
    foreign || fresh || !source.copy || (cursor && compareGridVersions(cursor, head) !== 0)
      ? undefined
      : await source.copy(q.profileId, head, after, q.limit + 1, scope);
  const merged = !copied;
  let rows: readonly OverrideRow[] = [];
  if (merged) {
    // The list comes with the head of its state (the one asked for, or one read with it): the
    // page is of that state, pins, count and version included.
    listed ??= await source.overrides(q.profileId, head, scope);
    if (compareGridVersions(listed.head, head) < 0) return { again: head, reason: 'rows' };
    ({ head, rows } = listed);
  }
  // The grid changed since the cursor: follow a relabel of the cursor's post (cursor-resume.ts).
  const start = foreign
    ? effectiveEntry(rows, cursor.postId)
    : cursor
      ? resumePosition(cursor, head, rows)
      : after;
  const stamps: (bigint | null)[] = [];
  const main =
    copied ??
    (await source.entries(q.profileId, rows, {
      ...(start ? { after: start } : {}),
      limit: q.limit + 1,
      exclude: head.pins,
      onStamp: (s) => void stamps.push(s),
      scope,
    }));
  if (merged) {
    // The time-ordered rows may show a newer state's posts (membership is applied after its
    // compare-and-set): their stamps tell, or else the head read after them (grid-head.ts).
    const verdict = rowsVerdict(stamps, head);
    if (verdict.kind === 'newer') {
      return { again: { generation: head.generation, version: verdict.version }, reason: 'rows' };
    }
    if (verdict.kind === 'unknown') {
      const now = await source.readHead(q.profileId, 'quorum', scope);
      if (!sameMembership(now, head)) return { again: now, reason: 'rows' };
    }
  }
  const hasMore = main.length > q.limit;
  const page = main.slice(0, q.limit);
  const pins: GridEntry[] = cursor ? [] : head.pins.map((p) => effectiveEntry(rows, p));
  const entries = [...pins, ...page];

  const bodies = await source.hydrate(
    entries.map((e) => e.postId),
    scope,
  );
  const items = entries.flatMap((e) => {
    const b = bodies.get(e.postId);
    return b ? [b] : [];
  });
  // A body is deleted only after every grid's compare-and-set let the post go, so a missing
  // one means a newer state: read again at least at it. If no newer state exists (the body is
  // simply gone), the page is served without it.
  if (items.length < entries.length && (!opts.bodyFloor || meetsMin(head, opts.bodyFloor))) {
    const next = { generation: head.generation, version: head.version + 1n };
    return { again: next, reason: 'bodies' };
  }
  const last = page[page.length - 1];
  const nextCursor =
    hasMore && last
      ? encodeCursor(
          {
            key: last.key,
            postId: last.postId,
            version: head.version,
            generation: head.generation,
            ...(chronological ? { chronological } : {}),
          },
          cursorSecret,
          q.profileId,
        )
      : null;
  const changed = cursor ? foreign || compareGridVersions(cursor, head) !== 0 : false;
  return {
    copied: Boolean(copied),
    page: {
      items,
      entries,
      nextCursor,
      version: head.version,
      generation: head.generation,
      postCount: head.postCount,
      gridChanged: changed,
      chronological,
    },
  };
}
