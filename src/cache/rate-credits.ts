/**
 * Move-rate credits this process holds (rate-limit.ts): pure bookkeeping, no I/O.
 *
 * Asking Redis before every move was a round trip, a wake-up and ~16 promises per move, about a
 * sixth of a move's Node CPU. A profile that moves fast (a drag session, a planning tool, a bot
 * at the limit) now asks the sliding-window log for several slots at once: each grant adds that
 * many members to the log, the first one pays for the move that asked, the others wait here for
 * the profile's next moves. A grant that was used up within its time to live doubles the next
 * ask, up to `maxCredit`; a profile that moves slowly keeps asking for one, exactly as before.
 * Unused slots are handed back (their members removed from the log) once they expire.
 *
 * The bound this costs: a slot is logged when granted, not when used (at most `ttlMs` later), so
 * a window can see up to `maxCredit − 1` moves more than the limit per process serving the
 * profile; and a process's unused slots are not free to another process until they are handed
 * back. `MOVE_RATE_CREDIT_MAX=1` makes every move ask Redis (exact).
 */

export interface CreditPolicy {
  /** The most slots one grant asks for; 1 = no credit. */
  readonly maxCredit: number;
  /** How long a granted slot may wait here before it is handed back. */
  readonly ttlMs: number;
}

/** At most a 16th of the limit (≤ 16) per grant; slots live ≤ 500 ms (≤ a 16th of the window). */
export function creditPolicy(limit: number, windowMs: number, maxCredit?: number): CreditPolicy {
  const derived = Math.max(1, Math.min(16, Math.floor(limit / 16)));
  return {
    maxCredit: Math.max(1, Math.min(maxCredit ?? derived, limit)),
    ttlMs: Math.max(1, Math.min(500, Math.floor(windowMs / 16))),
  };
}

interface Held {
  /** Granted and not yet used: the log's member names (to hand back). */
  readonly members: string[];
  /** The log's free slots when the last grant was made (without these). */
  remaining: number;
  /** The last grant's size (the next ask doubles it when used up in time). */
  size: number;
  until: number;
}

/** Slots to hand back: the log's members of one profile. */
export interface Refund {
  readonly profileId: bigint;
  readonly members: readonly string[];
}

export class RateCredits {
  private readonly held = new Map<bigint, Held>();

  constructor(readonly policy: CreditPolicy) {}

  /**
   * Uses one held slot of the profile, if it has one that has not expired: the moves left in
   * the window after this one (the log's free slots at the grant plus the slots still held).
   */
  take(profileId: bigint, now: number): number | undefined {
    const h = this.held.get(profileId);
    if (!h || now >= h.until || h.members.length === 0) return undefined;
    h.members.pop();
    return h.remaining + h.members.length;
  }

  /** How many slots the profile's next grant should ask for. */
  want(profileId: bigint, now: number): number {
    const h = this.held.get(profileId);
    // Used up before it expired: this profile moves faster than one ask per move pays for.
    if (h && h.members.length === 0 && now < h.until) {
      return Math.min(h.size * 2, this.policy.maxCredit);
    }
    return 1;
  }

  /**
   * Records a grant of `members` (the first pays for the move that asked and is not held) with
   * `remaining` free slots left in the log after it.
   */
  grant(profileId: bigint, members: readonly string[], remaining: number, now: number): void {
    if (members.length === 0) return;
    const until = now + this.policy.ttlMs;
    const h = this.held.get(profileId);
    const unused = members.slice(1);
    if (h && now < h.until) {
      // A concurrent move of the profile asked too: keep both grants' slots.
      h.members.push(...unused);
      h.remaining = remaining;
      h.size = Math.max(h.size, members.length);
      h.until = until;
      return;
    }
    this.held.set(profileId, { members: [...unused], remaining, size: members.length, until });
  }

  /** Forgets the profile's record if it expired by `now`; its unused slots, to hand back. */
  drop(profileId: bigint, now: number): Refund | undefined {
    const h = this.held.get(profileId);
    if (!h || now < h.until) return undefined;
    this.held.delete(profileId);
    return h.members.length > 0 ? { profileId, members: h.members } : undefined;
  }

  /** Forgets what expired by `now`; returns the unused slots to hand back. */
  expire(now: number): Refund[] {
    const out: Refund[] = [];
    for (const [profileId, h] of this.held) {
      if (now < h.until) continue;
      this.held.delete(profileId);
      if (h.members.length > 0) out.push({ profileId, members: h.members });
    }
    return out;
  }

  /** Profiles with a record (held slots or a recent grant). */
  get size(): number {
    return this.held.size;
  }
}
