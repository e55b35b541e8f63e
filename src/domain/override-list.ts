/**
 * The override list of the state a write commits, computed from the snapshot it was conditioned
 * on plus what it wrote: the compare-and-set guarantees nobody changed the partition in between,
 * so the writer's caches need not read back what it has just read and written.
 *
 * Same semantics as the conditional batch: a range clear drops every row first, then row
 * deletions, then upserts (the batch never deletes and writes one row, see grid-mutation.ts).
 * An upsert without `movedVersion` keeps the row's previous one (a relabel leaves the cell unset).
 */
import { compareDisplay } from './merge.js';
import type { OverrideRow } from './grid-head.js';

export interface OverrideChanges {
  readonly upserts?: readonly {
    readonly postId: bigint;
    readonly sortKey: bigint;
    readonly movedVersion?: bigint;
  }[];
  readonly deleteRows?: readonly bigint[];
  readonly clearOverrides?: boolean;
}

/** The rows after `changes`, sorted in display order (key DESC, postId DESC). */
export function overridesAfter(
  before: readonly OverrideRow[],
  changes: OverrideChanges,
): OverrideRow[] {
  const rows = new Map<bigint, OverrideRow>();
  if (!changes.clearOverrides) for (const r of before) rows.set(r.postId, r);
  for (const postId of changes.deleteRows ?? []) rows.delete(postId);
  for (const u of changes.upserts ?? []) {
    const movedVersion = u.movedVersion ?? rows.get(u.postId)?.movedVersion;
    rows.set(u.postId, { postId: u.postId, key: u.sortKey, movedVersion });
  }
  return [...rows.values()].sort((a, b) => compareDisplay(b, a));
}
