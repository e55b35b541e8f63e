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

/**
 * The rows after `changes`, sorted in display order (key DESC, postId DESC). Linear in the
 * snapshot's rows: the untouched ones keep their (sorted) order and only the few upserted rows
 * are sorted and merged in, since every commit of a grid with 10,000 overrides computes this.
 */
export function overridesAfter(
  before: readonly OverrideRow[],
  changes: OverrideChanges,
): OverrideRow[] {
  const deleted = new Set(changes.deleteRows ?? []);
  const upserts = changes.upserts ?? [];
  const written = new Map<bigint, OverrideRow>();
  if (upserts.length > 0) {
    const wanted = new Set(upserts.map((u) => u.postId));
    const previous = new Map<bigint, OverrideRow>();
    if (!changes.clearOverrides) {
      for (const r of before)
        if (wanted.has(r.postId) && !deleted.has(r.postId)) previous.set(r.postId, r);
    }
    for (const u of upserts) {
      const movedVersion =
        u.movedVersion ?? (written.get(u.postId) ?? previous.get(u.postId))?.movedVersion;
      written.set(u.postId, { postId: u.postId, key: u.sortKey, movedVersion });
    }
  }
  const kept = changes.clearOverrides
    ? []
    : before.filter((r) => !deleted.has(r.postId) && !written.has(r.postId));
  if (written.size === 0) return kept;
  const fresh = [...written.values()].sort((a, b) => compareDisplay(b, a));
  const out: OverrideRow[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length && j < fresh.length) {
    out.push(compareDisplay(kept[i]!, fresh[j]!) > 0 ? kept[i++]! : fresh[j++]!);
  }
  while (i < kept.length) out.push(kept[i++]!);
  while (j < fresh.length) out.push(fresh[j++]!);
  return out;
}
