/**
 * A grid's version stamp: (generation, version), both read from the static cells of the
 * override partition (absent version = 0, absent generation = 1).
 *
 * `version` is bumped by every grid write. `generation` changes only when version history could
 * have been lost (e.g. the static cells were rebuilt), so a version number may repeat across
 * generations. Comparing generation first makes any state of a later generation newer than every
 * state of an earlier one, whatever their version numbers. ETags, cursors and `min_version`
 * (read-your-writes) all compare through this one function.
 */

export interface GridVersion {
  readonly version: bigint;
  readonly generation: bigint;
}

/** -1 when `a` is older than `b`, 0 when equal, 1 when newer. */
export function compareGridVersions(a: GridVersion, b: GridVersion): -1 | 0 | 1 {
  if (a.generation !== b.generation) return a.generation < b.generation ? -1 : 1;
  if (a.version !== b.version) return a.version < b.version ? -1 : 1;
  return 0;
}

/** A read-your-writes floor; without `generation` only the version numbers are compared. */
export interface MinVersion {
  readonly version: bigint;
  readonly generation?: bigint;
}

/** Whether `state` is at least the floor `min` (no floor: always). */
export const meetsMin = (state: GridVersion, min: MinVersion | undefined): boolean =>
  min === undefined ||
  (min.generation === undefined
    ? state.version >= min.version
    : compareGridVersions(state, { generation: min.generation, version: min.version }) >= 0);

/** The same (generation, version) state. */
export const sameGridState = (a: GridVersion, b: GridVersion): boolean =>
  compareGridVersions(a, b) === 0;
