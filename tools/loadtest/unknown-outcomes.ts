/**
 * Moves whose outcome is unknown (a timeout, a node lost mid-write), resolved against the final
 * read. regrid's versions are consecutive: every commit after the grid was seeded is one version,
 * and each acknowledged move names the version it committed at (or the one it found, for a
 * no-op). So the versions between the seeded one and the final one that no acknowledgement names
 * are exactly the commits of unknown-outcome moves. Each such gap is given one of the unknown
 * moves, every way it can be; if one assignment, replayed with the acknowledged moves in version
 * order, gives the order read back, the run is explained: those moves committed, the others did
 * not. More gaps than unknown moves, or no assignment that fits, is a violation.
 *
 * Pure (no I/O). The search tries every injective assignment of unknown moves to gaps, so it is
 * bounded by their number (n!/(n−g)! for n unknown moves and g gaps, at most MAX_ASSIGNMENTS,
 * i.e. any g with n ≤ 6). With no gap there is nothing to search, whatever n is: none of them
 * committed. That is the common case of a partition, where every write that cannot reach a
 * quorum times out (test/regions/two-region-load.test.ts: dozens per grid).
 */
import { linearize, replay, ReplayError, type AckedMove } from './history.js';

export interface UnknownMove {
  readonly postId: bigint;
  readonly after: bigint | null;
}

export type Resolution =
  | { readonly kind: 'resolved'; readonly committed: number; readonly notApplied: number }
  | { readonly kind: 'unexplained'; readonly detail: string }
  /** Too many unknown moves on one grid to try every assignment. */
  | { readonly kind: 'too_many' };

export const MAX_ASSIGNMENTS = 720; // 6!

/** How many injective assignments of `n` unknown moves to `gaps` gaps there are (capped). */
function assignments(n: number, gaps: number): number {
  let out = 1;
  for (let i = 0; i < gaps && out <= MAX_ASSIGNMENTS; i++) out *= n - i;
  return out;
}

/** Versions committed after seeding that no acknowledged move names. */
export function unnamedVersions(
  acks: readonly AckedMove[],
  versions: { readonly seeded: bigint; readonly final: bigint },
): bigint[] {
  const named = new Set(acks.map((a) => a.version));
  const gaps: bigint[] = [];
  for (let v = versions.seeded + 1n; v <= versions.final; v++) if (!named.has(v)) gaps.push(v);
  return gaps;
}

export function resolveUnknown(
  initial: readonly bigint[],
  acks: readonly AckedMove[],
  unknown: readonly UnknownMove[],
  versions: { readonly seeded: bigint; readonly final: bigint },
  observed: readonly bigint[],
): Resolution {
  const gaps = unnamedVersions(acks, versions);
  if (gaps.length > unknown.length) {
    return {
      kind: 'unexplained',
      detail: `${gaps.length} version(s) committed that neither an acknowledged nor one of the ${unknown.length} unknown-outcome move(s) explains`,
    };
  }
  if (assignments(unknown.length, gaps.length) > MAX_ASSIGNMENTS) return { kind: 'too_many' };
  const want = observed.join(',');
  const seq0 = acks.reduce((m, a) => Math.max(m, a.seq), 0) + 1;
  // Injective assignments gap → unknown move, depth-first.
  const used = new Array<boolean>(unknown.length).fill(false);
  const chosen: AckedMove[] = [];
  const fits = (): boolean => {
    if (chosen.length === gaps.length) {
      try {
        return replay(initial, linearize([...acks, ...chosen])).join(',') === want;
      } catch (e) {
        if (e instanceof ReplayError) return false;
        throw e;
      }
    }
    const version = gaps[chosen.length]!;
    for (let i = 0; i < unknown.length; i++) {
      if (used[i]) continue;
      used[i] = true;
      chosen.push({ ...unknown[i]!, version, seq: seq0 + i });
      if (fits()) return true;
      chosen.pop();
      used[i] = false;
    }
    return false;
  };
  if (fits()) {
    return { kind: 'resolved', committed: gaps.length, notApplied: unknown.length - gaps.length };
  }
  return {
    kind: 'unexplained',
    detail: `no assignment of the ${unknown.length} unknown-outcome move(s) to the ${gaps.length} unnamed version(s) gives the order read back`,
  };
}
