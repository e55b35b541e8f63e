/**
 * The end-of-run check of a grid under the mixed workload: the state the acknowledged
 * operations imply (mixed-history.ts) against what the grid reads back. Pure.
 *
 * Rules, per grid:
 *  - `duplicate`: a post read back more than once;
 *  - `lost`: a post the model has on the grid (pinned or in the main order) is not read back;
 *  - `unexpected`: a post read back that the model has archived, deleted, or never created;
 *  - `pins`: the pins read back are not the model's, in pin order, or the page does not start
 *    with them;
 *  - `order`: the main order's placed (non-floating) posts are not in the order the operations
 *    imply, or the paged read does not show pins then the main order; and every version committed
 *    after seeding must be named by an acknowledgement.
 * A grid with operations of unknown outcome (timeouts) gets the duplicate check only.
 */
import { misplacedPosts, type GridCheck, type Violation } from './checker.js';
import { ReplayError } from './history.js';
import { replayMixed, type MixedAck } from './mixed-history.js';

export interface MixedExpected {
  readonly profileId: bigint;
  /** Display order before the first operation. */
  readonly initial: readonly bigint[];
  readonly acks: readonly MixedAck[];
  /** Operations of unknown outcome on this grid. */
  readonly uncertain: number;
  readonly versions?: { readonly seeded: bigint; readonly final: bigint };
}

export interface MixedObserved {
  /** The whole grid as pages show it (pins first), duplicates and all. */
  readonly display: readonly bigint[];
  /** The order resource: pins, and the main order. */
  readonly pins: readonly bigint[];
  readonly main: readonly bigint[];
}

const MAX_NAMED = 20;
const named = (ids: readonly bigint[]) => ids.slice(0, MAX_NAMED).map(String);

export function checkMixedGrid(e: MixedExpected, o: MixedObserved): GridCheck {
  const profile = String(e.profileId);
  const violations: Violation[] = [];
  const add = (kind: Violation['kind'], posts: readonly bigint[], detail: string) =>
    violations.push({ kind, profile, posts: named(posts), detail });

  const seen = new Map<bigint, number>();
  for (const id of o.display) seen.set(id, (seen.get(id) ?? 0) + 1);
  const dups = [...seen].filter(([, n]) => n > 1);
  if (dups.length > 0) {
    const copies = dups.map(([id, n]) => `${id}×${n}`).join(', ');
    add(
      'duplicate',
      dups.map(([id]) => id),
      `read back more than once: ${copies}`,
    );
  }
  if (e.uncertain > 0) return { violations, orderChecked: false };

  let state;
  try {
    state = replayMixed(e.initial, e.acks);
  } catch (err) {
    if (!(err instanceof ReplayError)) throw err;
    add('order', err.postIds, `history cannot be replayed: ${err.message}`);
    return { violations, orderChecked: true };
  }
  if (e.versions) {
    const namedVersions = new Set(e.acks.map((a) => a.version));
    let gaps = 0;
    for (let v = e.versions.seeded + 1n; v <= e.versions.final; v++)
      if (!namedVersions.has(v)) gaps++;
    if (gaps > 0)
      add('order', [], `${gaps} version(s) committed that no acknowledged operation explains`);
  }

  const expectedOn = new Set([...state.pins, ...state.main]);
  const lost = [...expectedOn].filter((id) => !seen.has(id));
  if (lost.length > 0) add('lost', lost, `${lost.length} post(s) missing from the grid`);
  const extra = [...seen.keys()].filter((id) => !expectedOn.has(id));
  if (extra.length > 0) {
    const why = (id: bigint) =>
      state.archived.has(id) ? 'archived' : state.deleted.has(id) ? 'deleted' : 'never created';
    const reasons = extra.slice(0, 3).map((id) => `${id} (${why(id)})`);
    add(
      'unexpected',
      extra,
      `${extra.length} post(s) on the grid that should not be: ${reasons.join(', ')}`,
    );
  }

  const samePins =
    o.pins.length === state.pins.length && o.pins.every((p, i) => p === state.pins[i]);
  const pageStarts = state.pins.every((p, i) => o.display[i] === p);
  if (!samePins || !pageStarts) {
    add(
      'pins',
      state.pins,
      `pins read back [${o.pins.join(', ')}], page starts [${o.display.slice(0, 3).join(', ')}]; the operations imply [${state.pins.join(', ')}]`,
    );
  }
  const shown = [...o.pins, ...o.main];
  if (shown.length !== o.display.length || shown.some((p, i) => p !== o.display[i])) {
    add('order', [], 'the paged read is not the pins followed by the order resource');
  }
  const placed = (ids: readonly bigint[]) => ids.filter((id) => !state.floating.has(id));
  const misplaced = misplacedPosts(placed(state.main), placed(o.main));
  if (misplaced.length > 0) {
    add(
      'order',
      misplaced,
      `${misplaced.length} placed post(s) out of the order the acknowledged operations imply (${state.floating.size} floating posts not compared)`,
    );
  }
  return { violations, orderChecked: true, floating: state.floating.size };
}
