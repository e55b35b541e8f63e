/**
 * Undo of a move (issue 3, design §5.1). A move made through `moveWithUndo` gets a `move_id` and
 * an undo record: the post's previous override key and the post that was right above it.
 *
 * `undoMove` goes through writeGrid like every write:
 *   - exact: when the grid is still at the version the move committed (nothing else changed it)
 *     and the move rewrote only that row, the previous key is written back as it was (a post that
 *     had no override gets its own ID as key: same position, and no null, so no tombstone);
 *   - otherwise: a move back after the previous anchor ("undo is a move back"), with the move's
 *     usual answers (409 if that anchor left the grid or the post is pinned now).
 * The record is written BEFORE the move (so a move whose response was lost in a crash can still
 * be undone, by anchor) and completed with the committed version after it (which enables the
 * exact restore). A record for a move that then failed is never handed out and expires.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { compareDisplay, type GridEntry } from '../domain/merge.js';
import type { OverridesSnapshot } from '../store/grid-store.js';
import type { MovesStore } from '../store/moves-store.js';
import type { GridService } from './grid-service.js';
import type { WriteOptions } from './grid-writer.js';
import { assertMoveRequest, effectiveEntry, movePlanner } from './move.js';
import type { PostsServiceDeps } from './posts-service.js';

export interface UndoDeps extends PostsServiceDeps {
  readonly moves: MovesStore;
}

/** A move that can be undone. `moveId` is chosen by the caller (it is in the response). */
export async function moveWithUndo(
  deps: UndoDeps,
  grid: GridService,
  profileId: bigint,
  postId: bigint,
  after: bigint | null,
  moveId: string = randomUUID(),
  options: WriteOptions = {},
) {
  assertMoveRequest(postId, after);
  const before = await deps.store.readOverrides(profileId);
  const prevKey = before.overrides.find((o) => o.postId === postId)?.key;
  const prevAfter = before.head.pins.includes(postId)
    ? undefined
    : await entryAbove(deps, before, profileId, postId);
  const rec = { profileId, moveId, postId, prevKey, prevAfter: prevAfter?.postId };
  await deps.moves.put({ ...rec, version: undefined, relabelled: undefined });
  const out = await grid.move(profileId, postId, after, options);
  await deps.moves
    .setOutcome(profileId, moveId, out.version, out.relabelled)
    .catch(() => undefined); // the move happened; undo falls back to the anchor
  return { ...out, moveId };
}

export async function undoMove(
  deps: UndoDeps,
  profileId: bigint,
  moveId: string,
  options: WriteOptions = {},
) {
  const rec = await deps.moves.get(profileId, moveId);
  if (!rec)
    throw new DomainError('post_not_found', 'no such move (or its undo expired)', {
      move_id: moveId,
    });
  const back = movePlanner(deps, rec.postId, rec.prevAfter ?? null);
  return deps.writer.writeGrid<{ exact: boolean }>(
    profileId,
    async (ctx) => {
      const { head } = ctx.snapshot;
      if (head.version === rec.version && rec.relabelled === 0 && !head.pins.includes(rec.postId)) {
        const upserts = [
          { postId: rec.postId, sortKey: rec.prevKey ?? rec.postId, movedVersion: ctx.nextVersion },
        ];
        return { kind: 'write', mutation: { upserts }, result: { exact: true } };
      }
      const d = await back(ctx);
      return { ...d, result: { exact: false } };
    },
    options,
  );
}

/** The unpinned entry right above `postId` in display order (null = it is at the top). */
async function entryAbove(
  deps: PostsServiceDeps,
  snap: OverridesSnapshot,
  profileId: bigint,
  postId: bigint,
): Promise<GridEntry | null> {
  const me = effectiveEntry(snap, postId);
  const pins = new Set(snap.head.pins);
  const overridden = new Set(snap.overrides.map((o) => o.postId));
  // Overrides are in display order (DESC): the last one above me is the closest.
  let best: GridEntry | null = null;
  for (const o of snap.overrides) {
    if (o.postId === postId || pins.has(o.postId)) continue;
    if (compareDisplay(o, me) > 0) best = { postId: o.postId, key: o.key };
  }
  // The closest un-overridden post above me: the first chronological ID above my key.
  const stream = deps.reader.chronologicalUp(profileId, me.key, 16);
  try {
    for await (const id of stream) {
      const e = { postId: id, key: id };
      if (id === postId || pins.has(id) || overridden.has(id) || compareDisplay(e, me) <= 0)
        continue;
      if (!best || compareDisplay(e, best) < 0) best = e;
      break;
    }
  } finally {
    await stream.return(undefined);
  }
  return best;
}
