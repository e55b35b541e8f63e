/**
 * The 'adaptive' relabel policy, regrid's default before 'bounded' (issue 27), kept as a
 * comparator of the key benchmarks: the local window of src/domain/keys/relabel.ts (tier A) with
 * windows up to 128 entries, else the whole grid. No amortized bound (docs/key-engine.md).
 */
import { placeLocal, wholeGrid } from '../../src/domain/keys/relabel.js';
import type { RelabelResult, Slice } from '../../src/domain/keys/slice.js';

/** Most neighbours a relabel rewrites before falling back to the whole grid. */
const MAX_WINDOW = 128;

export function placeAdaptive(slice: Slice, count: number, ceiling: bigint): RelabelResult {
  const local = placeLocal(slice, count, ceiling, MAX_WINDOW);
  if (local !== undefined) return local;
  return wholeGrid(slice, count, ceiling);
}
