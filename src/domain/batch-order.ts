/**
 * Batch reorder planning: turn "here is the new order" into the fewest key writes.
 *
 * Input is the grid's current main order (pins excluded) in display order, top first, with each
 * post's effective key, and a requested order for either
 *   - the whole main order (`above` and `below` both absent), or
 *   - a contiguous range, named by its outside neighbours: `above` is the post directly above the
 *     range's first post and `below` the post directly below its last post (`null` = the range
 *     reaches that end of the grid). The range is whatever lies strictly between them now, and
 *     `postIds` must be a permutation of exactly that.
 *
 * Posts on a longest increasing subsequence of their old positions (lis.keepMask) are already in
 * the right relative order and keep their keys. Every other post is grouped with the non-kept
 * posts that land in the same gap between two kept posts, and each group is handed to
 * keys.placeMany, which divides that gap evenly (or relabels a window around it when the gap is
 * too small). When no relabel is needed the plan writes exactly n − |LIS| rows, the minimum.
 *
 * Worked example (display order, top first): current A B C D E F, requested E A B C D F.
 * Old positions [4 0 1 2 3 5], LIS = A B C D F, so only E is placed: one group, in the gap
 * above A (ascending gap index 5 of the kept keys), one row written.
 *
 * Groups are placed one after the other on a working copy of the grid, so a relabel done for one
 * group is seen by the next and no two writes ever disagree.
 */
import { DomainError } from './errors.js';
import { placeMany, type Keyed } from './keys.js';
import { keepMask } from './lis.js';

export interface BatchOrderRequest {
  /** The requested order of the range (or of the whole main order), top first. */
  readonly postIds: readonly bigint[];
  /** Post directly above the range; `null` = range starts at the top; absent = whole order. */
  readonly above?: bigint | null;
  /** Post directly below the range; `null` = range ends at the bottom; absent = whole order. */
  readonly below?: bigint | null;
}

export interface BatchOrderPlan {
  /** Rows to write, each with its new key (moved posts and relabelled neighbours). */
  readonly writes: readonly Keyed[];
  /** Posts whose relative position changed: they get `moved_version`; relabels do not. */
  readonly moved: readonly bigint[];
  /** Posts in the range that keep their key (the LIS). */
  readonly kept: number;
  /** The full main order after the change, top first (what GET /order will return). */
  readonly order: readonly bigint[];
}

/**
 * Plans a batch reorder. `current` is the main order top first (display order: effective key
 * DESC, post ID DESC), pins excluded. `ceiling` is a freshly issued post ID (upper key bound).
 * Throws DomainError('invalid_request') when the request is not a permutation of its range.
 */
export function planBatchOrder(
  current: readonly Keyed[],
  request: BatchOrderRequest,
  ceiling: bigint,
): BatchOrderPlan {
  const [start, end] = locateRange(current, request);
  const range = current.slice(start, end);
  const newOrder = request.postIds;
  assertPermutation(range, newOrder);

  const oldIndex = new Map<bigint, number>();
  range.forEach((e, i) => oldIndex.set(e.postId, i));
  const oldPositions = newOrder.map((id) => oldIndex.get(id) as number);
  const keep = keepMask(oldPositions);

  // Working copy of the whole grid, ASCENDING (bottom first), without the posts to be placed.
  // Posts above/below the range are kept as they are; inside it only the LIS stays.
  const kept = new Set<bigint>();
  newOrder.forEach((id, i) => {
    if (keep[i]) kept.add(id);
  });
  const working: Keyed[] = [];
  for (let i = current.length - 1; i >= 0; i--) {
    const e = current[i] as Keyed;
    const inRange = i >= start && i < end;
    if (!inRange || kept.has(e.postId)) working.push(e);
  }

  // Groups of non-kept posts, each keyed by the kept post directly above it in the new order
  // (undefined = nothing kept above it inside the range: the group sits right under `above`).
  const writes = new Map<bigint, bigint>();
  const moved: bigint[] = [];
  let group: bigint[] = [];
  let anchorAbove: bigint | undefined =
    start > 0 ? (current[start - 1] as Keyed).postId : undefined;
  const flush = (): void => {
    if (group.length === 0) return;
    placeGroup(working, group, anchorAbove, writes, ceiling);
    moved.push(...group);
    group = [];
  };
  newOrder.forEach((id, i) => {
    if (keep[i]) {
      flush();
      anchorAbove = id;
    } else {
      group.push(id);
    }
  });
  flush();

  const order = [
    ...current.slice(0, start).map((e) => e.postId),
    ...newOrder,
    ...current.slice(end).map((e) => e.postId),
  ];
  return {
    writes: [...writes].map(([postId, key]) => ({ postId, key })),
    moved,
    kept: kept.size,
    order,
  };
}

/**
 * Places `group` (top first) directly below `anchorAbove` (undefined = at the very top) in the
 * ascending working array, then folds the resulting writes back into `working` and `writes`.
 */
function placeGroup(
  working: Keyed[],
  group: readonly bigint[],
  anchorAbove: bigint | undefined,
  writes: Map<bigint, bigint>,
  ceiling: bigint,
): void {
  // In ascending order the group goes just below its anchor: gap = the anchor's index.
  const gap =
    anchorAbove === undefined ? working.length : working.findIndex((e) => e.postId === anchorAbove);
  if (gap < 0) throw new Error('batch-order: anchor missing from working copy');
  const ascending = [...group].reverse();
  const placement = placeMany(
    { entries: working, gap, reachesBottom: true, reachesTop: true },
    ascending,
    ceiling,
  );
  if (placement.kind !== 'placed') {
    // The slice is the whole grid, so the key engine has nothing wider to ask for.
    throw new Error('batch-order: key engine asked for a wider slice than the whole grid');
  }
  const written = new Map<bigint, bigint>();
  for (const w of placement.writes) {
    written.set(w.postId, w.key);
    writes.set(w.postId, w.key);
  }
  // Rebuild the working copy: relabelled neighbours take their new keys, the group enters at gap.
  const placed = ascending.map((postId) => ({ postId, key: written.get(postId) as bigint }));
  if (placed.some((p) => p.key === undefined)) {
    throw new Error('batch-order: key engine did not place every post of the group');
  }
  const relabel = (e: Keyed): Keyed => {
    const k = written.get(e.postId);
    return k === undefined ? e : { postId: e.postId, key: k };
  };
  const next = [
    ...working.slice(0, gap).map(relabel),
    ...placed,
    ...working.slice(gap).map(relabel),
  ];
  working.splice(0, working.length, ...next);
}

/** Resolves the request's range to [start, end) indices of `current`. */
function locateRange(current: readonly Keyed[], request: BatchOrderRequest): [number, number] {
  const { above, below } = request;
  if (above === undefined && below === undefined) return [0, current.length];
  if (above === undefined || below === undefined) {
    throw new DomainError('invalid_request', 'name both neighbours of the range (or neither)', {
      reason: 'range_neighbours',
    });
  }
  const indexOf = (id: bigint, name: string): number => {
    const i = current.findIndex((e) => e.postId === id);
    if (i < 0) {
      throw new DomainError('invalid_request', `${name} is not in the grid's main order`, {
        reason: 'range_neighbours',
        field: name,
      });
    }
    return i;
  };
  const start = above === null ? 0 : indexOf(above, 'above') + 1;
  const end = below === null ? current.length : indexOf(below, 'below');
  if (end < start) {
    throw new DomainError('invalid_request', "'above' must be above 'below' in the grid", {
      reason: 'range_neighbours',
    });
  }
  return [start, end];
}

function assertPermutation(range: readonly Keyed[], postIds: readonly bigint[]): void {
  const expected = new Set(range.map((e) => e.postId));
  const seen = new Set<bigint>();
  for (const id of postIds) {
    if (!expected.has(id) || seen.has(id)) {
      throw new DomainError('invalid_request', 'post_ids is not a permutation of the range', {
        reason: 'not_a_permutation',
        post_id: id.toString(),
      });
    }
    seen.add(id);
  }
  if (seen.size !== expected.size) {
    throw new DomainError('invalid_request', 'post_ids is not a permutation of the range', {
      reason: 'not_a_permutation',
      missing: expected.size - seen.size,
    });
  }
}
