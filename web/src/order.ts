/**
 * Pure order arithmetic of the editor (no DOM, unit-tested in test/unit/web/order.test.ts):
 * where a moved tile lands, which anchor names that place for the server, the replay of recorded
 * moves on a fresh order after a 412, and the smallest contiguous range a batch PATCH must send.
 */

/** One recorded move, as the server understands it: put `postId` right after `after` (null = top). */
export interface Move {
  readonly postId: string;
  readonly after: string | null;
}

/** `ids` with the element at `from` moved to index `to` (indices of the result). */
export function moveIndex<T>(ids: readonly T[], from: number, to: number): T[] {
  const out = ids.slice();
  const [item] = out.splice(from, 1);
  if (item === undefined) return out;
  out.splice(to, 0, item);
  return out;
}

/**
 * The anchor of `postId` in a display order whose first `pinCount` entries are pins: the post
 * right before it, or null when it sits right after the pins (the server's "top").
 */
export function anchorOf(
  display: readonly string[],
  pinCount: number,
  postId: string,
): string | null {
  const i = display.indexOf(postId);
  return i - 1 >= pinCount ? display[i - 1]! : null;
}

/** Applies one move to a main order (pins excluded); a move naming an absent anchor is refused. */
export function applyMove(order: readonly string[], move: Move): string[] | undefined {
  const without = order.filter((id) => id !== move.postId);
  if (without.length === order.length) return undefined;
  if (move.after === null) return [move.postId, ...without];
  const at = without.indexOf(move.after);
  if (at < 0) return undefined;
  return [...without.slice(0, at + 1), move.postId, ...without.slice(at + 1)];
}

/** What a replay could not do on its own: the post left the grid, or its anchor did. */
export type ReplayIssue =
  | { readonly kind: 'post_gone'; readonly move: Move }
  | { readonly kind: 'post_pinned'; readonly move: Move }
  | { readonly kind: 'anchor_gone'; readonly move: Move };

/** The user's answer for a move whose anchor vanished: to the top, or drop the move. */
export type AnchorChoice = 'top' | 'skip';

/**
 * Replays `moves` in order on a fresh main order (design §5.3). Moves of posts that left the
 * grid or got pinned are dropped (nothing to ask: the post is not in the order any more); for a
 * move whose anchor vanished, `ask` decides. A pinned anchor means the top, as on the server.
 */
export async function replayMoves(
  order: readonly string[],
  pinned: readonly string[],
  moves: readonly Move[],
  ask: (move: Move) => Promise<AnchorChoice>,
): Promise<{ order: string[]; issues: ReplayIssue[] }> {
  let current = order.slice();
  const issues: ReplayIssue[] = [];
  for (const move of moves) {
    if (pinned.includes(move.postId)) {
      issues.push({ kind: 'post_pinned', move });
      continue;
    }
    if (!current.includes(move.postId)) {
      issues.push({ kind: 'post_gone', move });
      continue;
    }
    let m = move;
    if (m.after !== null && pinned.includes(m.after)) m = { ...m, after: null };
    let next = applyMove(current, m);
    if (!next) {
      issues.push({ kind: 'anchor_gone', move });
      if ((await ask(move)) === 'skip') continue;
      next = applyMove(current, { postId: move.postId, after: null });
    }
    if (next) current = next;
  }
  return { order: current, issues };
}

/** A PATCH body: the whole order, or a contiguous range named by its outside neighbours. */
export interface OrderPatch {
  readonly post_ids: string[];
  readonly above?: string | null;
  readonly below?: string | null;
}

/**
 * The smallest contiguous range of `next` that differs from `base` (same posts, other order),
 * so the body stays small on a long grid; undefined when nothing changed.
 */
export function patchFor(base: readonly string[], next: readonly string[]): OrderPatch | undefined {
  let first = 0;
  while (first < next.length && base[first] === next[first]) first++;
  if (first === next.length) return undefined;
  let last = next.length - 1;
  while (last > first && base[last] === next[last]) last--;
  if (first === 0 && last === next.length - 1) return { post_ids: next.slice() };
  return {
    post_ids: next.slice(first, last + 1),
    above: first > 0 ? next[first - 1]! : null,
    below: last < next.length - 1 ? next[last + 1]! : null,
  };
}

/** Versions are decimal strings of 64-bit values: compare them without losing digits. */
export const newerThan = (a: string, b: string): boolean => BigInt(a) > BigInt(b);
