/**
 * Move-rate grant requests of this process, coalesced per profile (rate-limit.ts): pure
 * bookkeeping, no I/O.
 *
 * Every move takes one slot of its profile's sliding-window log in Redis. Moves of one profile
 * that arrive together share ONE request: while a request is in flight, later moves wait here and
 * go out together in the next one, so a burst of 40 costs one or two round trips, not 40. A
 * request asks for exactly the moves it carries, never more: the log holds no slot that no move
 * took, so nothing is held here, nothing has to be handed back, another process's moves are never
 * refused for slots this one reserved, and a refusal's Retry-After (when the oldest counted move
 * leaves the window) is true. (Granting slots ahead of the moves, which this replaced, did all
 * four wrong: issue #22.)
 *
 * Worked example, `maxAsk` 7 (`MOVE_RATE_CREDIT_MAX=7`): moves m1…m10 of one profile arrive in one tick. `arrive(m1)` says
 * start; the caller's request `carry()`s m1…m7 (asks for 7); m8…m10 wait. Redis grants 7:
 * `settle(7)` admits m1…m7, the next `carry()` takes m8…m10 (asks for 3). Had it granted 5
 * (the window full), m6 and m7 would be refused and m8…m10 still asked for.
 *
 * Invariants (test/unit/cache/rate-credits.test.ts): per profile at most one request in flight;
 * a request carries 1…maxAsk moves, oldest first, and asks for exactly that many; every move is
 * answered once, admitted or refused; only a request granted fewer slots than it asked refuses,
 * and only the moves it carried beyond the grant.
 */

export interface CreditPolicy {
  /** The most moves one request carries (slots one call may grant); 1 = a call per move. */
  readonly maxAsk: number;
}

/**
 * `MOVE_RATE_CREDIT_MAX`, else 64 (a request no longer reserves beyond its moves, so a big one
 * costs only its ZADD); never more than the limit (the log could not grant more).
 */
export function creditPolicy(limit: number, maxAsk?: number): CreditPolicy {
  return { maxAsk: Math.max(1, Math.min(maxAsk ?? 64, limit)) };
}

interface Queue<W> {
  /** Arrived, not yet in a request, oldest first. */
  readonly waiting: W[];
  /** The request in flight carries these (empty: none in flight). */
  carried: W[];
}

export interface Settled<W> {
  /** Each took a slot (or the request failed open), in arrival order. */
  readonly admitted: readonly W[];
  /** Carried beyond the grant: the window was full. */
  readonly refused: readonly W[];
}

export class RateCredits<W> {
  private readonly queues = new Map<bigint, Queue<W>>();

  constructor(readonly policy: CreditPolicy) {}

  /**
   * A move of the profile arrives. True: no request is in flight or due, the caller starts one
   * (`carry`, then `settle`, until `carry` answers 0). False: the one under way will carry it.
   */
  arrive(profileId: bigint, move: W): boolean {
    const q = this.queues.get(profileId);
    if (q) {
      q.waiting.push(move);
      return false;
    }
    this.queues.set(profileId, { waiting: [move], carried: [] });
    return true;
  }

  /**
   * Puts the oldest waiting moves (at most `maxAsk`) into the profile's next request and answers
   * how many slots it asks for; 0 = none waiting, the profile is forgotten and the next arrival
   * starts anew.
   */
  carry(profileId: bigint): number {
    const q = this.queues.get(profileId);
    if (!q) return 0;
    if (q.carried.length > 0) throw new Error('rate credits: a request is already in flight');
    if (q.waiting.length === 0) {
      this.queues.delete(profileId);
      return 0;
    }
    q.carried = q.waiting.splice(0, this.policy.maxAsk);
    return q.carried.length;
  }

  /**
   * The request in flight was answered: `granted` slots (≤ asked) went to the oldest moves it
   * carried, the rest are refused; `undefined` = no answer (Redis down or slow), every move it
   * carried is admitted (the limiter fails open).
   */
  settle(profileId: bigint, granted: number | undefined): Settled<W> {
    const q = this.queues.get(profileId);
    if (!q || q.carried.length === 0) throw new Error('rate credits: no request in flight');
    const carried = q.carried;
    q.carried = [];
    const k =
      granted === undefined ? carried.length : Math.max(0, Math.min(granted, carried.length));
    return { admitted: carried.slice(0, k), refused: carried.slice(k) };
  }

  /** Profiles with moves waiting or a request in flight. */
  get size(): number {
    return this.queues.size;
  }
}
