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
  const at = writes.findIndex((w) => w.postId === postIds[0]);
  const moved = writes.slice(at, at + postIds.length).map((w) => w.postId);
  if (writes.length !== postIds.length + relabelled || moved.some((id, i) => id !== postIds[i])) {
    expect.fail(`writes ${writes.map((w) => w.postId)} do not hold ${postIds} + ${relabelled}`);
  }
  const next: Keyed[] = [
    ...entries.slice(0, gap),
    ...postIds.map((postId) => ({ postId, key: -1n })),
    ...entries.slice(gap),
  ];
  const start = gap - at;
  writes.forEach((w, i) => {
    if (next[start + i]?.postId !== w.postId) expect.fail(`write ${w.postId} outside its window`);
    next[start + i] = w;
  });
  return next;
}

/** Keys strictly increase and lie in (0, ceiling). Plain checks first: this runs in hot loops. */
export function expectValidKeys(entries: readonly Keyed[], ceiling: bigint): void {
  const bad = entries.findIndex(
    (e, i) => e.key <= 0n || e.key >= ceiling || (i > 0 && entries[i - 1]!.key >= e.key),
  );
  if (bad >= 0) {
    const around = entries.slice(Math.max(bad - 1, 0), bad + 1).map((e) => e.key);
    expect.fail(`keys ${around.join(', ')} at ${bad}: not ascending in (0, ${ceiling})`);
  }
}

/** The grid holds exactly `model`'s posts, in that order. */
export function expectOrder(entries: readonly Keyed[], model: readonly bigint[]): void {
  if (entries.length !== model.length || entries.some((e, i) => e.postId !== model[i])) {
    expect(entries.map((e) => e.postId)).toEqual(model);
  }
}
