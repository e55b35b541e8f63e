/**
 * Where each profile's next round may start without reading (group-commit.ts `Carried`): the
 * state this process's last applied batch left, kept while the profile's line is busy AND for a
 * while after it went idle.
 *
 * Starting from it is optimistic, never unsafe: the next batch is conditioned on that state's
 * version, so it applies only if nobody committed since; if somebody did, it loses and the round
 * re-reads. What it saves is the whole read round of a write on a grid this process keeps
 * writing (a drag session, a planning tool, one writer per profile): the move is then its one
 * conditional batch. What a wrong guess costs is one lost compare-and-set, so a profile whose
 * carried state turned out stale (another process writes it too) is not carried across idle
 * again for `sharedForMs`: it reads first, as before.
 *
 * Bounded: at most `maxRows` carried rows (override rows plus remembered grid_posts IDs) over all
 * profiles, least recently used first out; an idle entry lasts `idleMs` (0: dropped at idle).
 */
import type { Carried } from './group-commit.js';
import type { CarrySettings } from './write-types.js';

interface Entry {
  readonly carried: Carried;
  readonly rows: number;
  /** When the line went idle; undefined while it is busy. */
  idleSince: number | undefined;
}

export interface CarryStats {
  /** Idle starts taken from a carried state, and those whose batch then lost to another writer. */
  idleStarts: number;
  idleStale: number;
}

export class CarriedStates {
  private readonly entries = new Map<bigint, Entry>();
  private readonly sharedUntil = new Map<bigint, number>();
  private rows = 0;
  readonly stats: CarryStats = { idleStarts: 0, idleStale: 0 };

  constructor(
    private readonly settings: CarrySettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where the profile's next round starts, if anywhere; `idle` when it was parked. */
  take(profileId: bigint): { carried: Carried; idle: boolean } | undefined {
    const e = this.entries.get(profileId);
    if (!e) return undefined;
    const idle = e.idleSince !== undefined;
    if (idle && this.now() - e.idleSince! > this.settings.idleMs) {
      this.drop(profileId);
      return undefined;
    }
    if (idle) this.stats.idleStarts += 1;
    // Most recently used last.
    this.entries.delete(profileId);
    this.entries.set(profileId, e);
    e.idleSince = undefined;
    return { carried: e.carried, idle };
  }

  /** After a round: the state it left (or none, when the next round must read). */
  put(profileId: bigint, carried: Carried | undefined): void {
    this.drop(profileId);
    if (!carried) return;
    const rows = carried.snapshot.overrides.length + carried.memo.size();
    if (rows > this.settings.maxRows) return;
    this.entries.set(profileId, { carried, rows, idleSince: undefined });
    this.rows += rows;
    for (const [id, old] of this.entries) {
      if (this.rows <= this.settings.maxRows) break;
      this.entries.delete(id);
      this.rows -= old.rows;
    }
  }

  /** The profile's line emptied: keep its state for a while, unless it is shared or off. */
  park(profileId: bigint): void {
    const e = this.entries.get(profileId);
    if (!e) return;
    const t = this.now();
    const shared = (this.sharedUntil.get(profileId) ?? 0) > t;
    if (this.settings.idleMs <= 0 || shared) this.drop(profileId);
    else e.idleSince = t;
  }

  /** An idle start lost its batch: another process writes this profile too. */
  markShared(profileId: bigint): void {
    this.stats.idleStale += 1;
    this.sharedUntil.set(profileId, this.now() + this.settings.sharedForMs);
    // Old marks go once they lapse, so the map stays as small as the set of shared profiles.
    if (this.sharedUntil.size > 1024) {
      const t = this.now();
      for (const [id, until] of this.sharedUntil) if (until <= t) this.sharedUntil.delete(id);
    }
  }

  private drop(profileId: bigint): void {
    const e = this.entries.get(profileId);
    if (!e) return;
    this.entries.delete(profileId);
    this.rows -= e.rows;
  }
}
