/**
 * Pins: up to three posts shown first (first page only), in pin order, and left out of the main
 * order. They live in the `pins` static cell of the override partition, so a pin change is one
 * more write through writeGrid and is serialized with moves.
 *
 * Unpinning puts a post back at its effective key; if another row took that key meanwhile
 * (relabels skip pinned rows), it gets a fresh key next to that row (restore-key.ts).
 */
import type { ChangeDecl } from '../../domain/change-log.js';
import { DomainError } from '../../domain/errors.js';
import { compareDisplay, effectiveEntry } from '../../domain/merge.js';
import type { OverrideWrite } from '../../store/grid-mutation.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { restoreKey, type RestorePorts } from './restore-key.js';

export interface PinPorts extends RestorePorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
}

export const MAX_PINS = 3;

export interface PinsResult {
  readonly pins: readonly bigint[];
  /** Rows written to give unpinned posts a key (0 when their key was still free). */
  readonly rowsWritten: number;
}

export function assertPinsRequest(postIds: readonly bigint[]): void {
  if (postIds.length > MAX_PINS) {
    throw new DomainError('invalid_request', `at most ${MAX_PINS} posts can be pinned`, {
      field: 'post_ids',
    });
  }
  if (new Set(postIds).size !== postIds.length) {
    throw new DomainError('invalid_request', 'post_ids has duplicates', { field: 'post_ids' });
  }
}

export function setPins(
  ports: PinPorts,
  profileId: bigint,
  postIds: readonly bigint[],
  options: WriteOptions = {},
) {
  return trackOp('pins', async () => {
    assertPinsRequest(postIds);
    const opts: WriteOptions = { ...options, op: 'pins' };
    return ports.writer.writeGrid<PinsResult>(
      profileId,
      async ({ snapshot }) => {
        const onGrid = await Promise.all(
          postIds.map((id) => ports.store.hasGridRow(profileId, id)),
        );
        const missing = postIds.find((_, i) => !onGrid[i]);
        if (missing !== undefined) {
          throw new DomainError('post_not_on_grid', 'a post to pin is not on this grid', {
            post_id: missing.toString(),
          });
        }
        const old = snapshot.head.pins;
        if (old.length === postIds.length && old.every((p, i) => p === postIds[i])) {
          return { kind: 'skip', result: { pins: old, rowsWritten: 0 } };
        }
        const upserts = await unpinWrites(ports, profileId, snapshot, postIds);
        return {
          kind: 'write',
          mutation: { upserts, statics: { pins: [...postIds] } },
          result: { pins: postIds, rowsWritten: upserts.length },
          change: pinChange(old, postIds),
        };
      },
      opts,
    );
  });
}

/** Keys for the posts leaving the pins, one after the other (each sees the previous writes). */
async function unpinWrites(
  ports: PinPorts,
  profileId: bigint,
  snapshot: OverridesSnapshot,
  newPins: readonly bigint[],
): Promise<OverrideWrite[]> {
  const leaving = snapshot.head.pins.filter((p) => !newPins.includes(p));
  const written = new Map<bigint, OverrideWrite>();
  let view = snapshot;
  for (const postId of leaving) {
    const writes = await restoreKey(ports, {
      profileId,
      snapshot: view,
      postId,
      wanted: effectiveEntry(view.overrides, postId).key,
      // The posts still to be unpinned stay excluded until their turn.
      pins: [...newPins, ...leaving.slice(leaving.indexOf(postId) + 1)],
    });
    for (const w of writes) written.set(w.postId, { ...written.get(w.postId), ...w });
    view = withWrites(view, writes);
  }
  return [...written.values()];
}

/** The snapshot as it would read after `writes` (overrides re-sorted into display order). */
export function withWrites(
  s: OverridesSnapshot,
  writes: readonly OverrideWrite[],
): OverridesSnapshot {
  if (writes.length === 0) return s;
  const byId = new Map(s.overrides.map((o) => [o.postId, o]));
  for (const w of writes) {
    byId.set(w.postId, {
      postId: w.postId,
      key: w.sortKey,
      movedVersion: w.movedVersion ?? byId.get(w.postId)?.movedVersion,
    });
  }
  // Display order (key DESC, post ID DESC), the order a snapshot's overrides are kept in.
  const overrides = [...byId.values()].sort((a, b) => compareDisplay(b, a));
  return { ...s, overrides };
}

/**
 * What a new pin list changed: `pinned` with the posts it pins (and those it unpins) when it
 * pins any post it did not, else `unpinned` with those it lets go (or `pinned` for a reorder).
 */
function pinChange(old: readonly bigint[], pins: readonly bigint[]): ChangeDecl {
  const added = pins.filter((p) => !old.includes(p));
  const dropped = old.filter((p) => !pins.includes(p));
  if (added.length === 0 && dropped.length > 0) return { kind: 'unpinned', postIds: dropped };
  return { kind: 'pinned', postIds: added.length > 0 ? [...added, ...dropped] : [...pins] };
}
