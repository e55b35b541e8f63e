/**
 * The model of a grid under the mixed workload (mix.ts): the acknowledged operations, replayed
 * in grid-version order. Pure, like history.ts, which it extends from moves to every operation.
 *
 * State: the pins (in pin order), the main order (top first, pins apart), the archived and the
 * deleted posts. Most operations say exactly where a post goes (a move: right after its anchor or
 * to the top; a create: the top of the main order, its ID being above every key; a batch order:
 * the whole main order). Two put a post back by its sort key, which an order-only model does not
 * know: an unarchive (the key it had) and an unpin (its own key); and a move anchored after a
 * pinned post goes after that post's key in the main order. Those posts are *floating*:
 * they are on the grid, at a place the model cannot name, until a move or a batch order places
 * them again. The order check compares the non-floating posts only (projection), which is exact:
 * inserting P right after a placed post A, or at the top, does the same to both projections; a
 * post placed after a floating one floats too.
 *
 * A create puts the post at its own ID as its key, which is above every key issued before the
 * ID was. So it lands at the top of the main order unless another write committed between the
 * ID's issue and the create's commit and placed a post by a key issued later (a concurrent
 * create, a move to the top): a create is *contested*, and floats, when a write of a lower version
 * was answered after the create was sent.
 *
 * Equal versions: a write that changed nothing answers with the version it found, so the acks
 * of one version are the one write that committed it plus no-ops planned on its result.
 * `replayMixed` puts the one whose replay lets every other be a no-op first.
 */
import { ReplayError } from './history.js';

export type MixedAck = {
  readonly version: bigint;
  readonly seq: number;
  /** When the client sent it and when the answer came (ms, one clock): overlaps (creates). */
  readonly sentAt?: number;
  readonly ackedAt?: number;
} & (
  | { readonly kind: 'move'; readonly postId: bigint; readonly after: bigint | null }
  | { readonly kind: 'create' | 'delete' | 'archive' | 'unarchive'; readonly postId: bigint }
  | { readonly kind: 'pins'; readonly pins: readonly bigint[] }
  | { readonly kind: 'batch'; readonly order: readonly bigint[] }
);

/** A grid's mixed-workload log: its acknowledged operations and the client's view. */
export interface MixLog {
  readonly acks: MixedAck[];
  uncertain: number;
  /** Deletes and archives of unknown outcome (a 503 that may have applied): post → kind. */
  readonly maybeRemoved: Map<bigint, 'delete' | 'archive'>;
  readonly live: Set<bigint>;
  pins: bigint[];
  readonly archived: Set<bigint>;
}

export const newMixLog = (posts: readonly bigint[]): MixLog => ({
  acks: [],
  uncertain: 0,
  maybeRemoved: new Map(),
  live: new Set(posts),
  pins: [],
  archived: new Set(),
});

export interface MixedState {
  readonly pins: readonly bigint[];
  readonly main: readonly bigint[];
  readonly archived: ReadonlySet<bigint>;
  readonly deleted: ReadonlySet<bigint>;
  /** On the grid at a place the model cannot name (see the header). */
  readonly floating: ReadonlySet<bigint>;
}

export const initialState = (main: readonly bigint[]): MixedState => ({
  pins: [],
  main,
  archived: new Set(),
  deleted: new Set(),
  floating: new Set(),
});

/**
 * Applies one acknowledged operation; throws ReplayError when it cannot have been applied.
 * `contested`: a create that another write may have overtaken (see `contestedCreates`).
 */
export function applyAck(s: MixedState, a: MixedAck, contested = false): MixedState {
  const main = [...s.main];
  const floating = new Set(s.floating);
  const without = (id: bigint) => main.filter((p) => p !== id);
  const onGrid = (id: bigint) => main.includes(id) || s.pins.includes(id);
  switch (a.kind) {
    case 'move': {
      if (!main.includes(a.postId)) {
        throw new ReplayError(`moved post ${a.postId} is not in the main order`, [a.postId]);
      }
      const rest = without(a.postId);
      if (a.after === null) {
        floating.delete(a.postId);
        return { ...s, main: [a.postId, ...rest], floating };
      }
      if (s.pins.includes(a.after)) {
        // After a pinned post = after its key in the main order, which the model does not know.
        floating.add(a.postId);
        return { ...s, main: [a.postId, ...rest], floating };
      }
      const at = rest.indexOf(a.after);
      if (at === -1) throw new ReplayError(`anchor ${a.after} is not on the grid`, [a.after]);
      if (floating.has(a.after)) floating.add(a.postId);
      else floating.delete(a.postId);
      rest.splice(at + 1, 0, a.postId);
      return { ...s, main: rest, floating };
    }
    case 'create':
      if (onGrid(a.postId)) return s;
      if (contested) floating.add(a.postId);
      return { ...s, main: [a.postId, ...main], floating };
    case 'delete': {
      if (s.deleted.has(a.postId)) return s;
      if (!onGrid(a.postId) && !s.archived.has(a.postId)) {
        throw new ReplayError(`deleted post ${a.postId} was nowhere`, [a.postId]);
      }
      const archived = new Set(s.archived);
      archived.delete(a.postId);
      floating.delete(a.postId);
      return {
        pins: s.pins.filter((p) => p !== a.postId),
        main: without(a.postId),
        archived,
        deleted: new Set([...s.deleted, a.postId]),
        floating,
      };
    }
    case 'archive':
      if (s.archived.has(a.postId)) return s;
      if (!onGrid(a.postId))
        throw new ReplayError(`archived post ${a.postId} was not on the grid`, [a.postId]);
      floating.delete(a.postId);
      return {
        ...s,
        pins: s.pins.filter((p) => p !== a.postId),
        main: without(a.postId),
        archived: new Set([...s.archived, a.postId]),
        floating,
      };
    case 'unarchive': {
      if (onGrid(a.postId)) return s;
      if (!s.archived.has(a.postId)) {
        throw new ReplayError(`unarchived post ${a.postId} was not archived`, [a.postId]);
      }
      const archived = new Set(s.archived);
      archived.delete(a.postId);
      floating.add(a.postId);
      return { ...s, main: [a.postId, ...main], archived, floating };
    }
    case 'pins': {
      const missing = a.pins.find((p) => !onGrid(p));
      if (missing !== undefined) {
        throw new ReplayError(`pinned post ${missing} was not on the grid`, [missing]);
      }
      const leaving = s.pins.filter((p) => !a.pins.includes(p));
      for (const p of leaving) floating.add(p);
      return {
        ...s,
        pins: [...a.pins],
        main: [...leaving, ...main.filter((p) => !a.pins.includes(p))],
        floating,
      };
    }
    case 'batch': {
      const same = a.order.length === main.length && a.order.every((p) => main.includes(p));
      if (!same)
        throw new ReplayError('a batch order that is not a permutation of the main order', []);
      return { ...s, main: [...a.order], floating: new Set() };
    }
  }
}

const sameState = (a: MixedState, b: MixedState) =>
  a.pins.length === b.pins.length &&
  a.pins.every((p, i) => p === b.pins[i]) &&
  a.main.length === b.main.length &&
  a.main.every((p, i) => p === b.main[i]) &&
  a.archived.size === b.archived.size &&
  [...a.archived].every((p) => b.archived.has(p)) &&
  a.deleted.size === b.deleted.size;

/** Creates another write may have overtaken: one of a lower version answered after it was sent. */
export function contestedCreates(acks: readonly MixedAck[]): Set<MixedAck> {
  const out = new Set<MixedAck>();
  for (const c of acks) {
    if (c.kind !== 'create') continue;
    const sent = c.sentAt ?? -Infinity;
    if (acks.some((a) => a !== c && a.version < c.version && (a.ackedAt ?? Infinity) > sent)) {
      out.add(c);
    }
  }
  return out;
}

/** Replays the acks of one version with `first` first; null when it does not fit (see header). */
function tryGroup(
  s: MixedState,
  group: readonly MixedAck[],
  first: MixedAck,
  contested: ReadonlySet<MixedAck>,
): MixedState | null {
  try {
    let state = applyAck(s, first, contested.has(first));
    for (const a of group) {
      if (a === first) continue;
      const next = applyAck(state, a, contested.has(a));
      if (!sameState(state, next)) return null;
      state = next;
    }
    return state;
  } catch (e) {
    if (e instanceof ReplayError) return null;
    throw e;
  }
}

/** Replays every ack in version order (see the header for acks of equal versions). */
export function replayMixed(initial: readonly bigint[], acks: readonly MixedAck[]): MixedState {
  const sorted = [...acks].sort((a, b) =>
    a.version === b.version ? a.seq - b.seq : a.version < b.version ? -1 : 1,
  );
  const contested = contestedCreates(sorted);
  let state = initialState(initial);
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j]!.version === sorted[i]!.version) j++;
    const group = sorted.slice(i, j);
    let next: MixedState | null = null;
    for (const first of group) {
      next = group.length === 1 ? null : tryGroup(state, group, first, contested);
      if (next) break;
    }
    // One ack, or none fits: replay in acknowledgement order (its ReplayError is the violation).
    if (!next) for (const a of group) state = applyAck(state, a, contested.has(a));
    else state = next;
    i = j;
  }
  return state;
}
