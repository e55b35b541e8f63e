/**
 * The change log: what each committed version of a grid changed, one record per version, kept in
 * the override partition and written INSIDE the conditional batch that commits the version
 * (cql/022_change_log.cql). It is what the change stream publishes (service/changes/) and what
 * the catch-up route answers from, so a version's record exists exactly when the version does:
 * nothing to lose between the commit and the publish.
 *
 * Slots: version v is kept in slot `v mod slots` of a static map, an element overwritten in place
 * when its turn comes again, never deleted (no tombstones in the partition every read scans). A
 * write needs nothing it did not already know: no read of the log before the compare-and-set.
 *
 * What is retained: the slots may hold records of older turns (or of another slot count), so the
 * log a reader trusts is the run of consecutive versions ending at the head's version (`retained`).
 * A group commit of k writes fills k slots, so `slots` must be at least the largest group.
 *
 * Pure: no I/O.
 */

/** Kinds of change (the event contract, docs/integration.md "Change stream"). */
export const CHANGE_KINDS = [
  'created',
  'registered',
  'imported',
  'deleted',
  'archived',
  'unarchived',
  'moved',
  'pinned',
  'unpinned',
  'reset',
  'batch_reordered',
  'collaborator_accepted',
  'collaborator_declined',
  'collaborator_left',
  'collaborator_removed',
  'taken_down',
  'undone',
  'changed',
] as const;

export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** What a planner declares its write changed (absent: kind `changed`, posts derived). */
export interface ChangeDecl {
  readonly kind: ChangeKind;
  /** The posts this write changed (the moved, pinned, added or removed ones; no relabels). */
  readonly postIds: readonly bigint[];
}

export interface ChangeRecord extends ChangeDecl {
  readonly version: bigint;
  readonly generation: bigint;
  /** Commit time, ms since the epoch (planning time of the batch). */
  readonly at: number;
}

/** The slot (map key) of `version`'s record. */
export const changeSlot = (version: bigint, slots: number): number =>
  Number(version % BigInt(slots));

/**
 * The records a reader can trust, oldest first: the run of consecutive versions ending at
 * `headVersion`. Anything else the slots hold (an older turn, a version above the head a reader
 * saw from a newer replica state) is left out.
 */
export function retained(records: readonly ChangeRecord[], headVersion: bigint): ChangeRecord[] {
  const byVersion = new Map<bigint, ChangeRecord>();
  for (const r of records) byVersion.set(r.version, r);
  const out: ChangeRecord[] = [];
  for (let v = headVersion; v > 0n; v--) {
    const r = byVersion.get(v);
    if (!r) break;
    out.push(r);
  }
  return out.reverse();
}

export type ChangesAfter =
  | {
      readonly kind: 'ok';
      readonly changes: readonly ChangeRecord[];
      /** Set when more changes follow the page (`limit` reached). */
      readonly next?: bigint;
    }
  | { readonly kind: 'gone'; readonly oldest: bigint | undefined };

/**
 * The changes after version `after`, oldest first, at most `limit`. `gone` when the log no
 * longer holds every version after `after` (the caller must read the grid again). An `after` at
 * or above the head: nothing to tell.
 */
export function changesAfter(
  log: readonly ChangeRecord[],
  headVersion: bigint,
  after: bigint,
  limit: number,
): ChangesAfter {
  if (after >= headVersion) return { kind: 'ok', changes: [] };
  const oldest = log[0]?.version;
  if (oldest === undefined || oldest > after + 1n) return { kind: 'gone', oldest };
  const from = log.findIndex((r) => r.version > after);
  const page = log.slice(from, from + limit);
  const last = page[page.length - 1]!;
  return last.version < headVersion
    ? { kind: 'ok', changes: page, next: last.version }
    : { kind: 'ok', changes: page };
}

/** The posts named once each, in first-named order. */
export const distinctPosts = (ids: Iterable<bigint>): bigint[] => [...new Set(ids)];
