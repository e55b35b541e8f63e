/**
 * Putting a post back into the main order at a key it remembers: unpin (its effective key) and
 * unarchive "previous" (the key kept in the archive record). Design §3.2: while the post was out
 * of the order (pinned rows are skipped by relabels; archived rows are gone), a midpoint or a
 * relabel may have given another row the same effective key. If so, the post gets a fresh key
 * right below that row (a key between the neighbours it would have had), through the key engine,
 * exactly like a move; otherwise it keeps the key it remembers.
 *
 * Shared by the unpin (pin.ts) and the unarchive (archive.ts). Works on a snapshot inside a
 * writeGrid planner, so the check and the write are covered by the same compare-and-set.
 */
import { effectiveEntry, type GridEntry } from '../../domain/merge.js';
import type { OverrideWrite } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import { placeAfter, type PlacePorts } from './placement.js';

/** The move's placement, and whether a post is on the grid (a key held by an un-overridden post). */
export interface RestorePorts extends PlacePorts {
  readonly store: Pick<GridStore, 'hasGridRow'>;
}

export interface RestoreRequest {
  readonly profileId: bigint;
  readonly snapshot: OverridesSnapshot;
  readonly postId: bigint;
  /** The key the post should get back. */
  readonly wanted: bigint;
  /** Pins after this write (posts that stay out of the main order). */
  readonly pins: readonly bigint[];
  /** moved_version to set (unarchive: it changed position); undefined = leave unset (unpin). */
  readonly movedVersion?: bigint;
}

/** The override writes that put `postId` back at `wanted`, or next to its holder if taken. */
export async function restoreKey(
  ports: RestorePorts,
  req: RestoreRequest,
): Promise<OverrideWrite[]> {
  const { snapshot, postId, wanted, profileId } = req;
  const pins = new Set([...req.pins, ...snapshot.head.pins]);
  const holder = await keyHolder(ports, req, pins);
  if (!holder) {
    // Free. Nothing to write when the post already sits there and no moved_version is wanted.
    const sitsThere = effectiveEntry(snapshot.overrides, postId).key === wanted;
    if (req.movedVersion === undefined && sitsThere) return [];
    return [{ postId, sortKey: wanted, ...mv(req.movedVersion) }];
  }
  // Taken: place it right below the row that holds the key now (exclusions: every pin, old and new).
  const view: OverridesSnapshot = { ...snapshot, head: { ...snapshot.head, pins: [...pins] } };
  const placed = await placeAfter(ports, ports.reader, view, profileId, postId, holder);
  return placed.writes.map(
    (w) =>
      w.postId === postId
        ? { postId, sortKey: w.key, ...mv(req.movedVersion) }
        : { postId: w.postId, sortKey: w.key }, // relabel: moved_version untouched
  );
}

/** The unpinned post on the grid (other than `postId`) whose effective key is `wanted`, if any. */
async function keyHolder(
  ports: RestorePorts,
  req: RestoreRequest,
  pins: ReadonlySet<bigint>,
): Promise<GridEntry | undefined> {
  const { snapshot, postId, wanted, profileId } = req;
  const byOverride = snapshot.overrides.find(
    (o) => o.key === wanted && o.postId !== postId && !pins.has(o.postId),
  );
  if (byOverride) return { postId: byOverride.postId, key: byOverride.key };
  // A post without an override has its own ID as key: is post `wanted` on the grid, un-overridden?
  if (wanted === postId || pins.has(wanted)) return undefined;
  if (snapshot.overrides.some((o) => o.postId === wanted)) return undefined;
  return (await ports.store.hasGridRow(profileId, wanted))
    ? { postId: wanted, key: wanted }
    : undefined;
}

const mv = (v: bigint | undefined) => (v === undefined ? {} : { movedVersion: v });
