/**
 * One read of a grid page (read-page.ts runs it until it holds): the head, the page's entries
 * (a cached order, a reordered copy, or the override list merged with the time-ordered rows),
 * the bodies, and whether all of it is of one committed state. It is when the entries came from
 * a cached order or a copy (one state by construction), or when the merged rows' stamps show the
 * override list's own state (domain/grid-head.ts `rowsVerdict`; for a grid not stamped yet, the
 * head read after the rows), and no body of an entry is missing. Otherwise it names the state to
 * read again at.
 */
import { sliceCachedOrder } from '../../domain/cached-order.js';
import { compareGridVersions, decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { resumePosition } from '../../domain/cursor-resume.js';
import { rowsVerdict, sameMembership, type OverrideRow } from '../../domain/grid-head.js';
import type { PageHead, PageSource } from '../../domain/grid-source.js';
import { meetsMin, type GridVersion, type MinVersion } from '../../domain/grid-version.js';
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import type { GridPage, PageQuery } from './page-types.js';

export type Cursor = ReturnType<typeof decodeCursor>;

/** One read of the page: the page, or the state to read again at (the grid changed under it). */
export type Attempt =
  | { readonly page: GridPage; readonly read: PageHead; readonly fast: boolean; copied: boolean }
  | { readonly again: GridVersion; readonly reason: 'rows' | 'bodies' };

export async function readOnce(
  source: PageSource,
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
  const foreign = cursor !== undefined && (cursor.chronological ?? false) !== chronological;
  let listed: Awaited<ReturnType<PageSource['overrides']>> | undefined;
  let read: PageHead;
  if (fresh) {
    listed = await source.overrides(q.profileId);
    if (compareGridVersions(listed.head, fresh) < 0) return { again: fresh, reason: 'rows' };
    read = { head: listed.head };
  } else {
    // Never below min_version (the source escalates to LOCAL_SERIAL, or skips a stale summary).
    read = await source.head(q.profileId, opts.floor, cursor ? 0 : q.limit);
    if (read.moved) return { again: read.moved, reason: 'rows' };
  }
  let { head } = read;
  const after = cursor ? { key: cursor.key, postId: cursor.postId } : undefined;
  // Served from a cached order of this state: no override read at all (pins then get their ID
  // as key; pins never enter a cursor).
  const fast = foreign
    ? undefined
    : read.order && sliceCachedOrder(read.order, cursor, after, q.limit + 1);
  // A reordered copy of exactly this state (profiles with many overrides): seek to the cursor,
  // no override read. Only for a cursor of this very state: another state's cursor position is
  // resumed through the overrides (cursor-resume.ts).
  const copied =
    fast || foreign || fresh || !source.copy || (cursor && compareGridVersions(cursor, head) !== 0)
      ? undefined
      : await source.copy(q.profileId, head, after, q.limit + 1);
  const merged = !fast && !copied;
  let rows: readonly OverrideRow[] = [];
  if (merged) {
    // The list comes with the head of its state (the one asked for, or one read with it): the
    // page is of that state, pins, count and version included.
    listed ??= await source.overrides(q.profileId, head);
    if (compareGridVersions(listed.head, head) < 0) return { again: head, reason: 'rows' };
    ({ head, rows } = listed);
  }
  // The grid changed since the cursor: follow a relabel of the cursor's post (cursor-resume.ts).
  const start = foreign
    ? effectiveEntry(rows, cursor.postId)
    : cursor && !fast
      ? resumePosition(cursor, head, rows)
      : after;
  const stamps: (bigint | null)[] = [];
  const main =
    fast ??
    copied ??
    (await source.entries(q.profileId, rows, {
      ...(start ? { after: start } : {}),
      limit: q.limit + 1,
      exclude: head.pins,
      onStamp: (s) => void stamps.push(s),
    }));
  if (merged) {
    // The time-ordered rows may show a newer state's posts (membership is applied after its
    // compare-and-set): their stamps tell, or else the head read after them (grid-head.ts).
    const verdict = rowsVerdict(stamps, head);
    if (verdict.kind === 'newer') {
      return { again: { generation: head.generation, version: verdict.version }, reason: 'rows' };
    }
    if (verdict.kind === 'unknown') {
      const now = await source.current(q.profileId);
      if (!sameMembership(now, head)) return { again: now, reason: 'rows' };
    }
  }
  const hasMore = main.length > q.limit;
  const page = main.slice(0, q.limit);
  const pins: GridEntry[] = cursor ? [] : head.pins.map((p) => effectiveEntry(rows, p));
  const entries = [...pins, ...page];

  const bodies = await source.hydrate(
    entries.map((e) => e.postId),
    read.bodies,
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
    read,
    fast: Boolean(fast),
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
      fromStateCache: Boolean(fast) && read.cached === true,
    },
  };
}
