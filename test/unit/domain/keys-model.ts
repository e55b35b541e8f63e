/**
 * Test helpers for the key engine: build grids, apply a placement to a plain copy of the grid,
 * and check the engine's invariants. Shared by keys.test.ts and keys.property.test.ts.
 */
import { expect } from 'vitest';
import type { Keyed, Placement, Slice } from '../../../src/domain/keys.js';

export const whole = (entries: readonly Keyed[], gap: number): Slice => ({
  entries,
  gap,
  reachesBottom: true,
  reachesTop: true,
});

/** Entries with the given keys; post IDs 1001, 1002, … in key order. */
export const grid = (keys: readonly bigint[]): Keyed[] =>
  keys.map((key, i) => ({ postId: 1001n + BigInt(i), key }));

/**
 * The grid after the placement: the moved posts inserted at `gap`, every written key applied.
 * Fails the test when the writes are not one contiguous window around the moved posts.
 */
export function apply(
  entries: readonly Keyed[],
  gap: number,
  postIds: readonly bigint[],
  placement: Placement,
): Keyed[] {
  if (placement.kind !== 'placed') throw new Error('expected a placement');
  const { writes, relabelled } = placement;
  expect(writes).toHaveLength(postIds.length + relabelled);
  const at = writes.findIndex((w) => w.postId === postIds[0]);
  expect(writes.slice(at, at + postIds.length).map((w) => w.postId)).toEqual(postIds);
  const next: Keyed[] = [
    ...entries.slice(0, gap),
    ...postIds.map((postId) => ({ postId, key: -1n })),
    ...entries.slice(gap),
  ];
  const start = gap - at;
  writes.forEach((w, i) => {
    expect(next[start + i]?.postId).toBe(w.postId);
    next[start + i] = w;
  });
  return next;
}

/** Keys strictly increase and lie in (0, ceiling). */
export function expectValidKeys(entries: readonly Keyed[], ceiling: bigint): void {
  entries.forEach((e, i) => {
    expect(e.key > 0n && e.key < ceiling, `key ${e.key} in (0, ${ceiling})`).toBe(true);
    if (i > 0) expect(entries[i - 1]!.key < e.key, `keys ascend at ${i}`).toBe(true);
  });
}
