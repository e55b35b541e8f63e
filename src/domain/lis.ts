/**
 * Which posts of a batched reorder can keep their keys (design article §5.3).
 *
 * `oldPositions[i]` is where the post that the new order puts at index i used to be. Posts on a
 * longest strictly increasing subsequence of that array are already in the right relative order,
 * so they keep their keys; only the rest need new ones. Choosing a *longest* subsequence makes the
 * number of rewritten rows (n − LIS length) the minimum possible.
 *
 * Algorithm: patience sorting, O(n log n). `tails[k]` is the index of the smallest value that ends
 * an increasing run of length k+1 seen so far; each element binary-searches the first tail whose
 * value is >= its own (so equal values never extend a run: the subsequence is strictly
 * increasing), replaces it, and remembers the tail before it as its predecessor. Walking the
 * predecessor links back from the last tail yields one longest subsequence.
 *
 * Worked example: reordering A B C D E F into E A B C D F gives [4, 0, 1, 2, 3, 5]; the LIS is
 * 0 1 2 3 5 (A B C D F), so the mask is [false, true, true, true, true, true]: only E moves.
 */

/** `mask[i]` is true when the element at index i lies on one longest increasing subsequence. */
export function keepMask(oldPositions: readonly number[]): boolean[] {
  const n = oldPositions.length;
  const mask = new Array<boolean>(n).fill(false);
  if (n === 0) return mask;
  const tails: number[] = [];
  const prev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = oldPositions[i]!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (oldPositions[tails[mid]!]! < v) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = i;
  }
  for (let i = tails[tails.length - 1]!; i >= 0; i = prev[i]!) mask[i] = true;
  return mask;
}
