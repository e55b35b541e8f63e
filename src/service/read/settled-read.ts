/**
 * The settled read of a grid's first entries (design §3.4: the version, the rows, the version
 * again), composed here from the store's CQL reads (store/grid-reader.ts) and wherever override
 * lists come from (with Redis, cache/override-cache.ts): the store runs CQL only, and the cache
 * is handed this composition (service/wiring.ts) rather than calling back into the store.
 */
import { rowsVerdict, sameMembership, type GridHead } from '../../domain/grid-head.js';
import type {
  GridReads,
  OverrideLists,
  SettledRows,
  SettledSource,
} from '../../domain/grid-source.js';
import { compareGridVersions } from '../../domain/grid-version.js';

/**
 * The override list and its head come from one query, so they are one state; the time-ordered
 * rows are that state's exactly when no membership write committed before the last head read
 * (domain/grid-head.ts `sameMembership`). The state is the list's: `first`'s, or the newer head
 * the list was read with (its pins then); a list older than `first` makes the read `moved`.
 */
export async function readSettled(
  source: Pick<GridReads, 'copy' | 'entries' | 'readHead'>,
  lists: OverrideLists,
  profileId: bigint,
  first: GridHead,
  limit: number,
): Promise<SettledRows> {
  // A reordered copy of exactly this state (many overrides) holds exactly it: no list to read.
  const copied = await source.copy?.(profileId, first, undefined, limit);
  if (copied) return { head: first, rows: copied };
  const listed = await lists.read(profileId, first);
  const state = compareGridVersions(listed.head, first) >= 0 ? listed.head : undefined;
  const stamps: (bigint | null)[] = [];
  const rows = await source.entries(profileId, listed.rows, {
    limit,
    exclude: (state ?? first).pins,
    onStamp: (s) => void stamps.push(s),
  });
  if (!state) return { head: first, rows, moved: first };
  // Merged rows are the state's when their stamps say so, or else while the head read after
  // them shows no membership write since.
  const verdict = rowsVerdict(stamps, state);
  if (verdict.kind === 'newer') {
    return { head: state, rows, moved: { generation: state.generation, version: verdict.version } };
  }
  if (verdict.kind === 'unknown') {
    const again = await source.readHead(profileId, 'quorum');
    if (!sameMembership(again, state)) return { head: state, rows, moved: again };
  }
  return { head: state, rows };
}

/** `source` with its settled read taking override lists from `lists`. */
export function settledSource(source: GridReads, lists: OverrideLists): SettledSource {
  return {
    head: (p, min, prefetch) => source.head(p, min, prefetch),
    readHead: (p, c) => source.readHead(p, c),
    overrides: (p, expected) => source.overrides(p, expected),
    entries: (p, overrides, q) => source.entries(p, overrides, q),
    copy: source.copy,
    hydrate: (ids, known) => source.hydrate(ids, known),
    noteOverrides: (p, n) => source.noteOverrides?.(p, n),
    readSettled: (p, first, limit) => readSettled(source, lists, p, first, limit),
  };
}
