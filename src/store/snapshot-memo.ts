/**
 * The override list of the last state this process committed, per profile, kept in memory.
 *
 * A snapshot of the override partition normally reads every override row. But the rows change
 * only through the grid's compare-and-set, and a commit knows exactly what it leaves behind (the
 * snapshot it was conditioned on plus its mutation, domain/committed-state.ts). So when a head
 * read (one row: the statics and the rings) shows the state this process committed last, the
 * remembered rows ARE that state's rows: a move on a grid with 10,000 overrides reads one static
 * row instead of 10,000. A head from any other state (another process wrote) drops the entry and
 * the caller reads everything, as before; whoever then commits remembers again.
 *
 * Bounded by the total number of remembered rows (least recently used profiles go first); 0
 * turns it off.
 */
import { headAfter, overridesOf, type CommittedState } from '../domain/committed-state.js';
import { sameGridState } from '../domain/grid-version.js';
import type { GridHead, OverrideRow } from '../domain/grid-head.js';

interface Remembered {
  readonly generation: bigint;
  readonly version: bigint;
  readonly overrides: readonly OverrideRow[];
}

export interface SnapshotMemoStats {
  hits: number;
  misses: number;
}

export class SnapshotMemo {
  private readonly entries = new Map<bigint, Remembered>();
  private rows = 0;
  readonly stats: SnapshotMemoStats = { hits: 0, misses: 0 };

  constructor(private readonly maxRows: number) {}

  /** Whether a head read is worth trying for this profile. */
  has(profileId: bigint): boolean {
    return this.entries.has(profileId);
  }

  /** The rows of exactly `head`'s state, if this process committed it last. */
  rowsOf(profileId: bigint, head: GridHead): readonly OverrideRow[] | undefined {
    const known = this.entries.get(profileId);
    if (known && sameGridState(known, head)) {
      this.stats.hits += 1;
      this.entries.delete(profileId); // most recently used last
      this.entries.set(profileId, known);
      return known.overrides;
    }
    this.stats.misses += 1;
    this.forget(profileId);
    return undefined;
  }

  /** After a commit of this process (the writer's commit event). */
  remember(e: CommittedState): void {
    if (this.maxRows <= 0) return;
    this.forget(e.profileId);
    const overrides = overridesOf(e);
    if (overrides.length > this.maxRows) return;
    const { generation, version } = headAfter(e);
    this.entries.set(e.profileId, { generation, version, overrides });
    this.rows += overrides.length;
    for (const [profileId] of this.entries) {
      if (this.rows <= this.maxRows) break;
      this.forget(profileId);
    }
  }

  forget(profileId: bigint): void {
    const known = this.entries.get(profileId);
    if (!known) return;
    this.entries.delete(profileId);
    this.rows -= known.overrides.length;
  }
}
