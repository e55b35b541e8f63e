/**
 * The history of acknowledged moves of one grid, and its replay.
 *
 * A move says "put post P right after post A" (A = null: the top). regrid serialises every grid
 * write with a compare-and-set on the grid version, and each acknowledged move reports the version
 * it committed at, so sorting the acknowledgements by version recovers the one linear history the
 * store applied. Replaying that history from the initial order must give exactly the order read
 * back; in particular, of several concurrent moves of one post the one with the highest version
 * decides where it ends up (last writer wins, in version order, not in arrival order).
 *
 * A design without versions (the naive delete + insert one) has no such history; its acks are
 * ordered by the time they were acknowledged, which is the best a client can know.
 *
 * Pure: no I/O, so the ordering rules are unit-tested on their own.
 */

export interface AckedMove {
  readonly postId: bigint;
  /** Anchor: the post P goes right after, or null for the top of the grid. */
  readonly after: bigint | null;
  /** Grid version the store reported for this move; null when the design has none. */
  readonly version: bigint | null;
  /** Acknowledgement order within the run (ties and version-less designs). */
  readonly seq: number;
}

/**
 * Orders acks into the history the store applied: by version, then by acknowledgement order.
 * Equal versions are legal only for moves that changed nothing (a post already right after its
 * anchor may be acknowledged without a new version); replaying them in either order is a no-op.
 */
export function linearize(acks: readonly AckedMove[]): AckedMove[] {
  const versioned = acks.filter((a) => a.version !== null).length;
  if (versioned !== 0 && versioned !== acks.length) {
    throw new Error('a history mixes moves with and without versions');
  }
  return [...acks].sort((a, b) => {
    if (a.version !== null && b.version !== null && a.version !== b.version) {
      return a.version < b.version ? -1 : 1;
    }
    return a.seq - b.seq;
  });
}

/** Thrown when a history cannot be replayed (a move names a post that is not on the grid). */
export class ReplayError extends Error {
  constructor(
    message: string,
    readonly postIds: readonly bigint[],
  ) {
    super(message);
    this.name = 'ReplayError';
  }
}

/**
 * Applies moves, in the given order, to a grid in display order (top first).
 * Worked example: [a, b, c] + "c after a" → [a, c, b]; then "b to the top" → [b, a, c].
 */
export function replay(initial: readonly bigint[], moves: readonly AckedMove[]): bigint[] {
  const order = [...initial];
  for (const m of moves) {
    const from = order.indexOf(m.postId);
    if (from === -1) throw new ReplayError(`moved post ${m.postId} is not on the grid`, [m.postId]);
    if (m.after === m.postId)
      throw new ReplayError(`post ${m.postId} anchored to itself`, [m.postId]);
    order.splice(from, 1);
    if (m.after === null) {
      order.unshift(m.postId);
      continue;
    }
    const anchor = order.indexOf(m.after);
    if (anchor === -1) throw new ReplayError(`anchor ${m.after} is not on the grid`, [m.after]);
    order.splice(anchor + 1, 0, m.postId);
  }
  return order;
}

/** The final position each post was last sent to, by the last move of it in history order. */
export function lastWrites(history: readonly AckedMove[]): Map<bigint, AckedMove> {
  const last = new Map<bigint, AckedMove>();
  for (const m of history) last.set(m.postId, m);
  return last;
}

/** Whether `m` changes `order` (false: its post is already right after its anchor, or on top). */
function changes(order: readonly bigint[], m: AckedMove): boolean {
  const at = order.indexOf(m.postId);
  return m.after === null ? at !== 0 : order.indexOf(m.after) !== at - 1;
}

/** A version acknowledged for several moves, more than one of which changed the grid. */
export interface DoubledVersion {
  readonly version: bigint;
  readonly moves: readonly AckedMove[];
}

/**
 * Versions acknowledged for more than one move that changed the grid, replaying `history`
 * (linearize's order) from `initial`. regrid commits one write per version, and a write that
 * changed nothing answers with the version it found, so of the acks of one version at most one
 * may change the grid: one of them committed it, the others must be no-ops on its result. Two
 * regions each committing the same version (a LOCAL_SERIAL compare-and-set in both,
 * docs/regions.md) show up here: one of those acknowledged writes is gone, whatever the final
 * order happens to show (later moves may put its posts back where it sent them).
 * Throws ReplayError like `replay`.
 */
export function doubledVersions(
  initial: readonly bigint[],
  history: readonly AckedMove[],
): DoubledVersion[] {
  const out: DoubledVersion[] = [];
  let order: bigint[] = [...initial];
  for (let i = 0; i < history.length;) {
    let j = i + 1;
    const v = history[i]!.version;
    while (v !== null && j < history.length && history[j]!.version === v) j++;
    const group = history.slice(i, j);
    i = j;
    if (group.length === 1) {
      order = replay(order, group);
      continue;
    }
    const first = group.find((g) => {
      const after = replay(order, [g]);
      return group.every((h) => h === g || !changes(after, h));
    });
    if (!first) out.push({ version: v!, moves: group });
    order = replay(order, first ? [first] : group);
  }
  return out;
}
