/**
 * One page of a profile's grid, from the page read's one port (`GridReads`): the Cassandra
 * reader (store/grid-reader.ts), with Redis its bodies through the post cache (wired in
 * service/wiring.ts).
 *
 * One read for first and later pages: the state (head + override rows, one partition) and the
 * time-ordered rows from the cursor's key down (the top for a first page) are sent at once,
 * merged by (effective key DESC, post ID DESC), then the bodies are read. The cursor carries the
 * last entry's (key, postId) and the version/generation of the state the page was merged from.
 *
 * Profiles with many overrides may have a reordered copy of the state (cql/016_display_copy.cql):
 * then the page reads the head and seeks into the copy instead of reading the overrides.
 *
 * Pins come first on the first page only, in addition to `limit` main-order entries; they never
 * appear in a cursor.
 *
 * Every page is labelled by exactly the state its items come from (version, post_count, pins):
 * a copy is one state by construction; otherwise the state's head and override rows come from
 * one read, and the time-ordered rows, read beside it, show exactly its posts when their stamp
 * is the state's membership record (domain/grid-head.ts `rowsVerdict`). A newer stamp: read
 * again at least at that state. No stamp to tell by (a grid not stamped since cql/021, or no
 * rows), or an older one (the state's effects not applied yet): read again in order, the
 * state first, its effects rolled forward, then the rows, and the head after them
 * (`sameMembership`). A head below `min_version` is read again at LOCAL_SERIAL first. A missing
 * post body (a body is deleted only after every grid let the post go) means a newer state too.
 * Each of these runs this same read again, up to PAGE_ATTEMPTS times, then 503 `contention`.
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
import { rowsVerdict, sameMembership, type GridHead } from '../../domain/grid-head.js';
import type { GridReads } from '../../domain/grid-source.js';
import { meetsMin, type MinVersion } from '../../domain/grid-version.js';
import { effectiveEntry, mergeGrid, type GridEntry } from '../../domain/merge.js';
import { minVersionEscalations, pageRereads } from '../../obs/metrics.js';
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

type Source = GridReads<StatementScope>;
type Cursor = ReturnType<typeof decodeCursor>;

/** How an attempt reads: its floor, and whether the rows wait for the state (see the header). */
interface At {
  readonly floor: MinVersion | undefined;
  /** A missing body asks for a newer state only while the state read is below this. */
  readonly bodyFloor: MinVersion | undefined;
  readonly ordered: boolean;
  readonly chronological: boolean;
}

/** The grid changed under an attempt: read again at least at `again` (in order when `ordered`). */
interface Again {
  readonly again: MinVersion;
  readonly reason: 'rows' | 'bodies';
  readonly ordered?: boolean;
}

/** The entries of one state a page shows, before bodies. */
interface Order {
  readonly head: GridHead;
  /** Pins (first page) then up to `limit` main-order entries. */
  readonly entries: readonly GridEntry[];
  /** The last main-order entry when more follow (the next cursor's position). */
  readonly last: GridEntry | undefined;
  readonly copied: boolean;
}

export async function readGridPage(
  source: Source,
  cursorSecret: string,
  q: PageQuery,
  chronological = false,
): Promise<GridPage> {
  const started = performance.now();
  const cursor = q.cursor ? decodeCursor(q.cursor, cursorSecret, q.profileId) : undefined;
  const { page, copied } = await attempts(q.minVersion, chronological, async (at) => {
    const order = await readOrder(source, q, cursor, at);
    if ('again' in order) return order;
    return withBodies(source, cursorSecret, q, cursor, order, at);
  });
  recordPageRead({
    firstPage: !cursor,
    fromCopy: copied,
    changed: page.gridChanged,
    seconds: (performance.now() - started) / 1000,
  });
  return page;
}

/**
 * A first page's order (pins first), by the page read's own attempts, without the bodies: what
 * the load tester compares with the PostgreSQL design's first page (service/grid-service.ts).
 */
export async function readFirstPageOrder(
  source: Source,
  profileId: bigint,
  limit: number,
): Promise<bigint[]> {
  const q = { profileId, limit };
  const order = await attempts(undefined, false, (at) => readOrder(source, q, undefined, at));
  return order.entries.map((e) => e.postId);
}

/** Runs `once` until it answers, each time at the state the previous attempt asked for. */
async function attempts<T>(
  min: MinVersion | undefined,
  chronological: boolean,
  once: (at: At) => Promise<T | Again>,
): Promise<T> {
  let at: At = { floor: min, bodyFloor: undefined, ordered: false, chronological };
  for (let attempt = 1; ; attempt++) {
    const out = await once(at);
    if (!isAgain(out)) return out;
    pageRereads.inc({ reason: out.reason });
    if (attempt >= PAGE_ATTEMPTS) {
      throw new DomainError('contention', 'the grid changed under every read of this page', {
        attempts: attempt,
      });
    }
    at = {
      floor: out.again,
      bodyFloor: out.reason === 'bodies' ? out.again : at.bodyFloor,
      ordered: out.ordered ?? false,
      chronological,
    };
    if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));
  }
}

const isAgain = (x: unknown): x is Again =>
  typeof x === 'object' && x !== null && 'again' in x && 'reason' in x;

/**
 * One attempt at the page's entries: a reordered copy of exactly the head's state, or the state
 * merged with the time-ordered rows read beside it (in order when `at.ordered`), checked to be of
 * one state by the rows' stamp (see the header).
 */
async function readOrder(
  source: Source,
  q: Pick<PageQuery, 'profileId' | 'limit' | 'scope'>,
  cursor: Cursor | undefined,
  at: At,
): Promise<Order | Again> {
  const { profileId, limit, scope } = q;
  const foreign = cursor !== undefined && (cursor.chronological ?? false) !== at.chronological;
  const after = cursor ? { key: cursor.key, postId: cursor.postId } : undefined;
  const copy = foreign ? undefined : source.copy;
  if (copy?.has(profileId)) {
    // Only for a cursor of this very state: another state's cursor position is resumed through
    // the overrides (cursor-resume.ts).
    const head = await source.readHead(profileId, 'quorum', scope);
    if (meetsMin(head, at.floor) && (!cursor || compareGridVersions(cursor, head) === 0)) {
      const copied = await copy.slice(profileId, head, after, limit + 1, scope);
      if (copied) return orderOf(head, [], copied, cursor, limit, true);
    }
  }
  const read = (from: bigint | undefined) => {
    const stamps: (bigint | null)[] = [];
    const ids = source.rows(profileId, {
      from,
      limit: limit + 1,
      onStamp: (s) => void stamps.push(s),
      scope,
    });
    return { from, ids, stamps };
  };
  const early = at.ordered ? undefined : read(cursor?.key);
  const { head, rows } = await source.state(profileId, scope);
  if (!meetsMin(head, at.floor)) {
    // Below the caller's floor at LOCAL_QUORUM: LOCAL_SERIAL finishes a round a writer left
    // half-done. A newer state: read again at it; the same one: that is all there is.
    minVersionEscalations.inc();
    const now = await source.readHead(profileId, 'serial', scope);
    if (compareGridVersions(now, head) !== 0) return { again: now, reason: 'rows' };
  }
  if (at.ordered) await source.rollForward(profileId, head);
  // The grid changed since the cursor: follow a relabel of the cursor's post (cursor-resume.ts).
  const start = foreign
    ? effectiveEntry(rows, cursor.postId)
    : cursor
      ? resumePosition(cursor, head, rows)
      : undefined;
  const used = early && early.from === start?.key ? early : read(start?.key);
  const main = await mergeGrid(rows, used.ids, {
    pinned: head.pins,
    ...(start ? { after: start } : {}),
    limit: limit + 1,
  });
  const verdict = rowsVerdict(used.stamps, head);
  if (verdict.kind === 'newer') {
    return { again: { generation: head.generation, version: verdict.version }, reason: 'rows' };
  }
  if (verdict.kind === 'unknown') {
    if (!at.ordered) return { again: head, reason: 'rows', ordered: true };
    const now = await source.readHead(profileId, 'quorum', scope);
    if (!sameMembership(now, head)) return { again: now, reason: 'rows' };
  }
  return orderOf(head, rows, main, cursor, limit, false);
}

function orderOf(
  head: GridHead,
  rows: readonly GridEntry[],
  main: readonly GridEntry[],
  cursor: Cursor | undefined,
  limit: number,
  copied: boolean,
): Order {
  const page = main.slice(0, limit);
  const pins = cursor ? [] : head.pins.map((p) => effectiveEntry(rows, p));
  return {
    head,
    entries: [...pins, ...page],
    last: main.length > limit ? page[page.length - 1] : undefined,
    copied,
  };
}

/** The page of `order` with its bodies, or the state to read again at (a body is missing). */
async function withBodies(
  source: Source,
  cursorSecret: string,
  q: PageQuery,
  cursor: Cursor | undefined,
  order: Order,
  at: At,
): Promise<{ page: GridPage; copied: boolean } | Again> {
  const { head, entries, last } = order;
  const bodies = await source.hydrate(
    entries.map((e) => e.postId),
    q.scope,
  );
  const items = entries.flatMap((e) => {
    const b = bodies.get(e.postId);
    return b ? [b] : [];
  });
  // A body is deleted only after every grid's compare-and-set let the post go, so a missing
  // one means a newer state: read again at least at it. If no newer state exists (the body is
  // simply gone), the page is served without it.
  if (items.length < entries.length && (!at.bodyFloor || meetsMin(head, at.bodyFloor))) {
    const next = { generation: head.generation, version: head.version + 1n };
    return { again: next, reason: 'bodies' };
  }
  const { chronological } = at;
  const nextCursor = last
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
  const foreign = cursor !== undefined && (cursor.chronological ?? false) !== chronological;
  const changed = cursor ? foreign || compareGridVersions(cursor, head) !== 0 : false;
  return {
    copied: order.copied,
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
