/**
 * The request ring: the last few idempotent requests a grid committed, kept in one static cell of
 * the grid's own override partition and rewritten inside the same conditional batch as the write
 * itself. It is what makes "crash after commit, before the response was recorded" safe: the retry
 * finds its key in the partition it would write to, under the same compare-and-set.
 *
 * Why a ring in a static cell (and not rows): the override partition is scanned by every read, so
 * it must never collect tombstones. The ring is a single frozen value; overwriting it replaces one
 * cell and leaves nothing behind. It is bounded (RING_SIZE entries, each ~60 bytes plus its
 * outcome) so the head read stays small.
 *
 * Exactly-once argument: a request commits only through `IF version = v` where v is the version at
 * which it read the ring without finding its key. Any other commit of the same key would have
 * bumped the version and put the key in the ring, so the CAS fails, the writer re-reads, finds the
 * key and replays instead. The one gap is eviction: if RING_SIZE other keyed writes commit after
 * ours before a retry looks, the key is gone. `checkRing` detects that case (it knows the version
 * the request was first claimed at) and answers 'unknown' instead of guessing 'absent'.
 */

export const RING_SIZE = 16;

export interface RingEntry {
  /** Hex of the first 16 bytes of SHA-256(scope + key): fixed size, whatever the client sends. */
  readonly keyHash: string;
  /** Hex of the first 16 bytes of the request fingerprint. */
  readonly fingerprint: string;
  /** Grid version this request committed. */
  readonly version: bigint;
  /** Commit time, ms since the epoch (for pruning after the retention period). */
  readonly at: number;
  /** The stored response, serialized (small JSON). */
  readonly outcome: string;
}

export type RingVerdict =
  | { readonly kind: 'replay'; readonly entry: RingEntry } // committed: return its outcome
  | { readonly kind: 'mismatch'; readonly entry: RingEntry } // same key, other request: 422
  | { readonly kind: 'absent' } // provably never committed (as of this read)
  | { readonly kind: 'unknown' }; // may have committed and been evicted: refuse to re-apply

/**
 * Looks a request up in the ring read at some version. `claimedAt` is the grid version read just
 * before the request's idempotency claim was made: any commit of this request has a higher version.
 * An absent key is trustworthy when nothing that recent can have been evicted: the ring is not
 * full, or its oldest surviving entry committed at or before `claimedAt`.
 */
export function checkRing(
  ring: readonly RingEntry[],
  keyHash: string,
  fingerprint: string,
  claimedAt: bigint,
  size = RING_SIZE,
): RingVerdict {
  const entry = ring.find((e) => e.keyHash === keyHash);
  if (entry) {
    return entry.fingerprint === fingerprint
      ? { kind: 'replay', entry }
      : { kind: 'mismatch', entry };
  }
  if (ring.length < size) return { kind: 'absent' };
  const oldest = ring.reduce((m, e) => (e.version < m ? e.version : m), ring[0]!.version);
  // Entries are evicted oldest first. If the oldest survivor committed at or before the claim,
  // every evicted entry did too, so ours (committed after the claim) cannot be among them.
  return oldest <= claimedAt ? { kind: 'absent' } : { kind: 'unknown' };
}

/**
 * The ring after committing `entry`: entries older than `maxAgeMs` are dropped, then the oldest
 * are evicted down to `size`. Order is oldest first. Pure: returns a new array.
 */
export function pushToRing(
  ring: readonly RingEntry[],
  entry: RingEntry,
  opts: { readonly now: number; readonly maxAgeMs: number; readonly size?: number },
): RingEntry[] {
  const size = opts.size ?? RING_SIZE;
  const fresh = ring.filter((e) => opts.now - e.at <= opts.maxAgeMs && e.keyHash !== entry.keyHash);
  const next = [...fresh, entry];
  return next.slice(Math.max(0, next.length - size));
}
