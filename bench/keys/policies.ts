/**
 * The relabel policies the key benchmarks compare: regrid's ('bounded', the only one in
 * src/domain/keys/), the 'adaptive' policy it replaced and the article's window doubling. Each is
 * a PlaceFn handed to placeOne / placeCapped.
 */
import { placeBounded } from '../../src/domain/keys/relabel.js';
import type { PlaceFn } from '../../src/domain/keys/slice.js';
import { placeAdaptive } from './relabel-adaptive.js';
import { placeDoubling } from './relabel-doubling.js';

export type RelabelPolicy = 'bounded' | 'adaptive' | 'doubling';
export const DEFAULT_POLICY: RelabelPolicy = 'bounded';

export const POLICIES: Record<RelabelPolicy, PlaceFn> = {
  bounded: placeBounded,
  adaptive: placeAdaptive,
  doubling: placeDoubling,
};
