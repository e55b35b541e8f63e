/**
 * The end-of-run checker: compares the order read back from a design with the order the
 * acknowledged moves imply. Pure function over (expected model, observed order), so every rule is
 * unit-tested without a database.
 *
 * Rules, per grid:
 *  - every post exactly once: a post read back twice is a `duplicate`, one missing is `lost`,
 *    one nobody created is `unexpected`;
 *  - order: replaying the acks in version order (see history.ts) must give the observed order.
 *    Posts out of place are the ones outside a longest common subsequence of the two orders,
 *    i.e. the fewest posts whose moving would reconcile them; those are named in the violation.
 *    Moves of unknown outcome (a timeout may or may not have applied) are resolved against the
 *    final read when the grid's versions are known (unknown-outcomes.ts); otherwise the order
 *    check is skipped for that grid (and said so), since no single history is then implied.
 * Tombstones are judged separately (`checkTombstones`): regrid's moves must write none.
 */
import { keepMask } from '../../src/domain/lis.js';
import { lastWrites, linearize, replay, ReplayError, type AckedMove } from './history.js';
import { resolveUnknown, unnamedVersions, type UnknownMove } from './unknown-outcomes.js';

export type ViolationKind = 'duplicate' | 'lost' | 'unexpected' | 'order' | 'pins' | 'tombstones';

export interface Violation {
  readonly kind: ViolationKind;
  readonly profile: string; // decimal ID, as in JSON everywhere
  readonly posts: readonly string[];
  readonly detail: string;
}

export interface ExpectedGrid {
  readonly profileId: bigint;
  /** Display order (top first) before the first move. */
  readonly initial: readonly bigint[];
  readonly acks: readonly AckedMove[];
  /** Moves whose outcome is unknown (timeouts, dropped connections). */
  readonly uncertain: number;
  /** What those moves asked for, and the grid's versions, to resolve them (unknown-outcomes.ts). */
  readonly unknownMoves?: readonly UnknownMove[];
  readonly versions?: { readonly seeded: bigint; readonly final: bigint };
}

export interface GridCheck {
  readonly violations: Violation[];
  /** False when the order could not be checked (uncertain moves). */
  readonly orderChecked: boolean;
  /** Unknown-outcome moves resolved against the final read: how many committed, how many not. */
  readonly resolved?: { readonly committed: number; readonly notApplied: number };
  /** Mixed runs: posts on the grid whose place the model cannot name (mixed-history.ts). */
  readonly floating?: number;
}

const MAX_NAMED = 20; // a violation names at most this many posts; the detail gives the count

const named = (ids: readonly bigint[]) => ids.slice(0, MAX_NAMED).map(String);

export function checkGrid(expected: ExpectedGrid, observed: readonly bigint[]): GridCheck {
  const profile = String(expected.profileId);
  const violations: Violation[] = [];
  const wanted = new Set(expected.initial);

  const seen = new Map<bigint, number>();
  for (const id of observed) seen.set(id, (seen.get(id) ?? 0) + 1);
  const dups = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  if (dups.length > 0) {
    const copies = dups.map((id) => `${id}×${seen.get(id)}`).join(', ');
    violations.push({
      kind: 'duplicate',
      profile,
      posts: named(dups),
      detail: `read back more than once: ${copies}`,
    });
  }
  const lost = expected.initial.filter((id) => !seen.has(id));
  if (lost.length > 0) {
    violations.push({
      kind: 'lost',
      profile,
      posts: named(lost),
      detail: `${lost.length} post(s) missing from the grid`,
    });
  }
  const extra = [...seen.keys()].filter((id) => !wanted.has(id));
  if (extra.length > 0) {
    violations.push({
      kind: 'unexpected',
      profile,
      posts: named(extra),
      detail: `${extra.length} post(s) nobody put on this grid`,
    });
  }

  // With versions, every commit must be accounted for (none applied twice, none nobody asked
  // for), and moves of unknown outcome are resolved against the order read back.
  const unknown = expected.unknownMoves ?? [];
  if (expected.versions && expected.uncertain === 0) {
    const gaps = unnamedVersions(expected.acks, expected.versions);
    if (gaps.length > 0) {
      violations.push({
        kind: 'order',
        profile,
        posts: [],
        detail: `${gaps.length} version(s) committed that no acknowledged move explains (e.g. ${gaps[0]})`,
      });
    }
  } else if (expected.versions && unknown.length === expected.uncertain) {
    const r = resolveUnknown(expected.initial, expected.acks, unknown, expected.versions, observed);
    if (r.kind === 'unexplained') {
      violations.push({ kind: 'order', profile, posts: [], detail: r.detail });
      return { violations, orderChecked: true };
    }
    if (r.kind === 'resolved') return { violations, orderChecked: true, resolved: r };
  }
  if (expected.uncertain > 0) return { violations, orderChecked: false };

  const history = linearize(expected.acks);
  let want: bigint[];
  try {
    want = replay(expected.initial, history);
  } catch (e) {
    if (!(e instanceof ReplayError)) throw e;
    violations.push({
      kind: 'order',
      profile,
      posts: named(e.postIds),
      detail: `history cannot be replayed: ${e.message}`,
    });
    return { violations, orderChecked: true };
  }
  const misplaced = misplacedPosts(want, observed);
  if (misplaced.length > 0) {
    const last = lastWrites(history);
    const why = misplaced.slice(0, 3).map((id) => describeLast(id, last.get(id)));
    violations.push({
      kind: 'order',
      profile,
      posts: named(misplaced),
      detail: `${misplaced.length} post(s) out of the order the acknowledged moves imply; ${why.join('; ')}`,
    });
  }
  return { violations, orderChecked: true };
}

/**
 * Posts whose relative order differs between `want` and `observed` (first occurrences, posts in
 * both only): the complement of a longest increasing run of want-positions along `observed`.
 */
export function misplacedPosts(want: readonly bigint[], observed: readonly bigint[]): bigint[] {
  const pos = new Map(want.map((id, i) => [id, i] as const));
  const firstSeen = new Set<bigint>();
  const common: bigint[] = [];
  for (const id of observed) {
    if (pos.has(id) && !firstSeen.has(id)) {
      firstSeen.add(id);
      common.push(id);
    }
  }
  const keep = keepMask(common.map((id) => pos.get(id)!));
  return common.filter((_, i) => !keep[i]);
}

function describeLast(id: bigint, m: AckedMove | undefined): string {
  if (!m) return `${id} was never moved`;
  const where = m.after === null ? 'the top' : `after ${m.after}`;
  const at = m.version === null ? `ack #${m.seq}` : `version ${m.version}`;
  return `${id} was last sent to ${where} (${at})`;
}

/** A design that promises tombstone-free moves violates it by any tombstone in its partitions. */
export function checkTombstones(profileId: bigint, table: string, tombstones: number): Violation[] {
  if (tombstones <= 0) return [];
  return [
    {
      kind: 'tombstones',
      profile: String(profileId),
      posts: [],
      detail: `${tombstones} tombstone(s) in ${table}, counted by Cassandra on a full traced read`,
    },
  ];
}

/** Violation counts by kind, for summaries. */
export function countByKind(violations: readonly Violation[]): Record<ViolationKind, number> {
  const out: Record<ViolationKind, number> = {
    duplicate: 0,
    lost: 0,
    unexpected: 0,
    order: 0,
    pins: 0,
    tombstones: 0,
  };
  for (const v of violations) out[v.kind] += 1;
  return out;
}
