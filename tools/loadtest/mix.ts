/**
 * The mixed workload (`--mix`): besides moves, creates, pins/unpins, archive/unarchive, deletes
 * and batch orders, in proportions given by the user. Pure: the spec's parser and the choice of
 * the next operation from what the client knows of a grid (its view), so every rule is
 * unit-tested without a store.
 *
 * Grids stay bounded: a delete or an archive on a grid down to `low` posts becomes a create, and
 * a create on a grid at `high` becomes a delete, so no grid is ever emptied and none grows
 * without bound (an unarchive on a full grid becomes an archive). Pins stay within 3 (the product's limit): a pin on a full set becomes an unpin.
 *
 * Operations name posts by ID (posts come and go during the run); the view is what the client's
 * acknowledgements said, so a concurrent writer may have changed the grid meanwhile, and the
 * store's refusal (a 4xx) is then an outcome like any other (counted by kind and code).
 */
import type { Rng } from './rng.js';

export const MIX_KINDS = ['moves', 'creates', 'pins', 'archive', 'deletes', 'batch'] as const;
export type MixKind = (typeof MIX_KINDS)[number];
export type Mix = Readonly<Record<MixKind, number>>;

/** The default proportions (percent): mostly moves, like a real grid editor's traffic. */
export const DEFAULT_MIX: Mix = {
  moves: 60,
  creates: 10,
  pins: 8,
  archive: 12,
  deletes: 5,
  batch: 5,
};

export const MAX_PINS = 3;

/**
 * `default`, or `kind=weight,…` (weights are relative; kinds not named get 0), e.g.
 * `moves=60,creates=10,pins=8,archive=12,deletes=5,batch=5`. Throws with a message on bad input.
 */
export function parseMix(spec: string): Mix {
  if (spec.trim() === 'default') return DEFAULT_MIX;
  const out: Record<MixKind, number> = {
    moves: 0,
    creates: 0,
    pins: 0,
    archive: 0,
    deletes: 0,
    batch: 0,
  };
  for (const part of spec.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*([0-9]+(\.[0-9]+)?)\s*$/.exec(part);
    if (!m) throw new Error(`"${part}" is not kind=weight`);
    const kind = m[1] as MixKind;
    if (!MIX_KINDS.includes(kind)) {
      throw new Error(`unknown kind "${m[1]}" (one of ${MIX_KINDS.join(', ')})`);
    }
    out[kind] = Number(m[2]);
  }
  if (MIX_KINDS.every((k) => out[k] === 0)) throw new Error('every weight is 0');
  return out;
}

/** What the client knows of one grid from its acknowledgements. */
export interface GridView {
  /** Posts on the grid (pinned ones included), in no particular order. */
  readonly live: readonly bigint[];
  /** Pinned posts, in pin order. */
  readonly pins: readonly bigint[];
  readonly archived: readonly bigint[];
}

export interface MixBounds {
  /** Deletes and archives below this many posts become creates. */
  readonly low: number;
  /** Creates at this many posts become deletes. */
  readonly high: number;
  /** Archives at this many archived posts become unarchives. */
  readonly archived: number;
}

/** Bounds around the seeded size: never below half of it, never above one and a half of it. */
export const boundsFor = (posts: number): MixBounds => ({
  low: Math.max(3, Math.floor(posts / 2)),
  high: posts + Math.ceil(posts / 2),
  archived: Math.max(2, Math.floor(posts / 4)),
});

export type MixedOp =
  | { readonly kind: 'move'; readonly postId: bigint; readonly after: bigint | null }
  | { readonly kind: 'create' }
  | { readonly kind: 'pin' | 'unpin'; readonly pins: readonly bigint[] }
  | { readonly kind: 'archive' | 'unarchive' | 'delete'; readonly postId: bigint }
  | { readonly kind: 'batch' };

export type OpKind = MixedOp['kind'];
export const OP_KINDS: readonly OpKind[] = [
  'move',
  'create',
  'pin',
  'unpin',
  'archive',
  'unarchive',
  'delete',
  'batch',
];

/** Draws a kind by weight. */
export function drawKind(rng: Rng, mix: Mix): MixKind {
  const total = MIX_KINDS.reduce((n, k) => n + mix[k], 0);
  let x = rng.next() * total;
  for (const k of MIX_KINDS) {
    x -= mix[k];
    if (x < 0 && mix[k] > 0) return k;
  }
  return MIX_KINDS.filter((k) => mix[k] > 0).at(-1)!;
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(xs.length)]!;

/**
 * The next operation on a grid of view `v`. `topShare` of the moves go to the top; `preferred`
 * (the contended posts, when this move is a hot one) is where a move's post is taken from when
 * any of them is movable.
 */
export function nextMixedOp(
  rng: Rng,
  mix: Mix,
  v: GridView,
  bounds: MixBounds,
  topShare: number,
  preferred: readonly bigint[] = [],
): MixedOp {
  const kind = drawKind(rng, mix);
  const movable = v.live.filter((p) => !v.pins.includes(p));
  const n = v.live.length;
  switch (kind) {
    case 'creates':
      return n >= bounds.high && movable.length > 0
        ? { kind: 'delete', postId: pick(rng, movable) }
        : { kind: 'create' };
    case 'deletes':
      return n <= bounds.low ? { kind: 'create' } : { kind: 'delete', postId: pick(rng, v.live) };
    case 'archive': {
      // An unarchive adds a post: never on a full grid; always on one at its floor.
      const unarchive =
        v.archived.length > 0 &&
        n < bounds.high &&
        (v.archived.length >= bounds.archived || n <= bounds.low || rng.next() < 0.5);
      if (unarchive) return { kind: 'unarchive', postId: pick(rng, v.archived) };
      return n <= bounds.low ? { kind: 'create' } : { kind: 'archive', postId: pick(rng, v.live) };
    }
    case 'pins': {
      const unpin =
        v.pins.length >= MAX_PINS ||
        movable.length === 0 ||
        (v.pins.length > 0 && rng.next() < 0.5);
      if (unpin) {
        const gone = pick(rng, v.pins);
        return { kind: 'unpin', pins: v.pins.filter((p) => p !== gone) };
      }
      // The newest pin goes first, as on a profile.
      return { kind: 'pin', pins: [pick(rng, movable), ...v.pins] };
    }
    case 'batch':
      return { kind: 'batch' };
    case 'moves':
      return nextMixedMove(rng, movable, topShare, preferred);
  }
}

function nextMixedMove(
  rng: Rng,
  movable: readonly bigint[],
  topShare: number,
  preferred: readonly bigint[],
): MixedOp {
  // Nothing to move (a tiny grid, nearly all pinned): grow it instead.
  if (movable.length < 2) return { kind: 'create' };
  const hot = preferred.filter((p) => movable.includes(p));
  const postId = hot.length > 0 ? pick(rng, hot) : pick(rng, movable);
  if (rng.next() < topShare) return { kind: 'move', postId, after: null };
  const others = movable.filter((p) => p !== postId);
  return { kind: 'move', postId, after: pick(rng, others) };
}

/**
 * The order a batch reorder asks for: the main order with one window of up to 8 posts
 * shuffled (a drag of several tiles at once), always different from `order` when it has two
 * posts or more; `order` itself otherwise.
 */
export function batchOrderFor(rng: Rng, order: readonly bigint[]): bigint[] {
  const out = [...order];
  if (out.length < 2) return out;
  const size = 2 + rng.int(Math.min(8, out.length) - 1);
  const start = rng.int(out.length - size + 1);
  const window = out.slice(start, start + size);
  // Fisher–Yates, then a rotation if the shuffle gave the window back unchanged.
  for (let i = window.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [window[i], window[j]] = [window[j]!, window[i]!];
  }
  if (window.every((p, i) => p === out[start + i])) window.push(window.shift()!);
  out.splice(start, size, ...window);
  return out;
}
