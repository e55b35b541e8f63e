/**
 * LastCommitted: per grid, ONE record of what this process committed last: the state its last
 * applied batch left (head and override rows: the snapshot it was conditioned on with its
 * mutation applied) and the `grid_posts` rows read since (known-rows.ts). Its one job is to let
 * the grid's next batch start without reading what it already knows.
 *
 * How a batch starts from it (`start`):
 *   - trusted: while the grid's queue is running, and for `trustIdleMs` after it emptied, the
 *     record IS the snapshot: no read at all. The batch is conditioned on the record's version,
 *     so if another process committed meanwhile it loses its compare-and-set and re-reads:
 *     optimistic, never unsafe. A trusted start after idle that loses marks the grid shared
 *     (another process writes it too): it is not trusted across idle for `sharedForMs`;
 *   - confirmed: otherwise one head read (the static row). If it shows the record's version and
 *     generation, the record's override rows are that state's rows: a move on a grid with 10,000
 *     overrides reads one row instead of 10,000. Any other head: the record is dropped and the
 *     whole override partition is read.
 * After a membership write (its effects change `grid_posts` and the side tables after the batch)
 * the record is kept for a confirmed start only, and without rows.
 *
 * The bound: at most `maxRows` rows (override rows plus known grid_posts IDs) over all records,
 * least recently used grid first out; a record larger than that alone is not kept.
 * The expiry: the known grid_posts rows answer reads for `rowsMaxAgeMs` after the first of them
 * was read, then are read again (a row written outside the compare-and-set, by seeding or a
 * repair, bumps no version). What the record holds of its own commit never expires: every use of
 * it is checked by the compare-and-set (trusted) or the head read (confirmed).
 *
 * Apart from the records, the newest state this process committed per grid (`newest`), kept
 * when its record goes (bounded by `NEWEST_MAX` grids, least recently committed first out): the
 * evidence that a head read behind it lost versions this process acknowledged (commit.ts
 * `versionFloor`), so the grid's next write moves it to a new generation.
 */
import { compareGridVersions, sameGridState, type GridVersion } from '../../domain/grid-version.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import { GridPostsMemo } from './known-rows.js';
import type { RecordSettings } from './types.js';

interface Entry {
  readonly state: OverridesSnapshot;
  /** Known grid_posts rows; undefined after a membership write. */
  readonly rows: GridPostsMemo | undefined;
  readonly size: number;
  /** Trusted without a read until then (ms since the epoch); Infinity while its queue runs. */
  trustedUntil: number;
}

/** Where a batch starts: its snapshot, the rows known for it, and how it was got. */
export interface Start {
  readonly snapshot: OverridesSnapshot;
  readonly rows: GridPostsMemo;
  /** No read was made (trusted); the caller rolls a read snapshot's membership forward. */
  readonly trusted: boolean;
  /** Trusted after idle: a lost compare-and-set means the record was stale, not contention. */
  readonly afterIdle: boolean;
}

/** Grids whose newest committed state is kept (a few dozen bytes each). */
const NEWEST_MAX = 100_000;

export class LastCommitted {
  private readonly records = new Map<bigint, Entry>();
  private readonly newestOf = new Map<bigint, GridVersion>();
  private readonly sharedUntil = new Map<bigint, number>();
  private rows = 0;

  constructor(
    private readonly settings: RecordSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The snapshot the grid's next batch is planned on (see the header). */
  async start(
    profileId: bigint,
    store: Pick<GridStore, 'readHead' | 'readOverrides'>,
    mayTrust: boolean,
  ): Promise<Start> {
    const e = this.records.get(profileId);
    if (!e) return { snapshot: await store.readOverrides(profileId), ...this.fresh() };
    this.records.delete(profileId); // most recently used last
    this.records.set(profileId, e);
    const rows =
      e.rows && this.now() - e.rows.since <= this.settings.rowsMaxAgeMs ? e.rows : undefined;
    const t = this.now();
    if (mayTrust && t <= e.trustedUntil) {
      const afterIdle = e.trustedUntil !== Infinity;
      e.trustedUntil = Infinity; // its queue runs again
      return { snapshot: e.state, rows: rows ?? new GridPostsMemo(), trusted: true, afterIdle };
    }
    const head = await store.readHead(profileId, {}, true);
    if (sameGridState(e.state.head, head)) {
      const snapshot = { head, overrides: e.state.overrides };
      return { snapshot, rows: rows ?? new GridPostsMemo(), trusted: false, afterIdle: false };
    }
    this.forget(profileId);
    return { snapshot: await store.readOverrides(profileId), ...this.fresh() };
  }

  private fresh() {
    return { rows: new GridPostsMemo(), trusted: false, afterIdle: false } as const;
  }

  /**
   * A batch applied and left `state`; `rows` are the grid_posts rows it knew (undefined for a
   * membership write). `running`: the grid's queue goes on (trusted until it empties).
   */
  committed(
    profileId: bigint,
    state: OverridesSnapshot,
    rows: GridPostsMemo | undefined,
    running: boolean,
  ): void {
    this.forget(profileId);
    this.remember(profileId, state.head);
    if (this.settings.maxRows <= 0) return;
    const size = state.overrides.length + (rows?.size() ?? 0);
    if (size > this.settings.maxRows) return;
    const trustedUntil = running && rows ? Infinity : 0;
    this.records.set(profileId, { state, rows, size, trustedUntil });
    this.rows += size;
    for (const [id] of this.records) {
      if (this.rows <= this.settings.maxRows) break;
      this.forget(id);
    }
  }

  /** The newest state this process committed on the grid (while it is among the kept ones). */
  newest(profileId: bigint): GridVersion | undefined {
    return this.newestOf.get(profileId);
  }

  private remember(profileId: bigint, head: GridVersion): void {
    const before = this.newestOf.get(profileId);
    this.newestOf.delete(profileId); // most recently committed last
    const { generation, version } = head;
    const newest =
      before && compareGridVersions(before, head) > 0 ? before : { generation, version };
    this.newestOf.set(profileId, newest);
    if (this.newestOf.size > NEWEST_MAX) this.newestOf.delete(this.newestOf.keys().next().value!);
  }

  /** A batch ended without applying (or failed): the next one confirms the record first. */
  distrust(profileId: bigint): void {
    const e = this.records.get(profileId);
    if (e) e.trustedUntil = 0;
  }

  /** The grid's queue emptied: trusted for `trustIdleMs` more, unless the grid is shared. */
  idle(profileId: bigint): void {
    const e = this.records.get(profileId);
    if (!e || e.trustedUntil !== Infinity) return;
    const t = this.now();
    const shared = (this.sharedUntil.get(profileId) ?? 0) > t;
    e.trustedUntil = this.settings.trustIdleMs > 0 && !shared ? t + this.settings.trustIdleMs : 0;
  }

  /** A trusted start after idle lost its batch: another process writes this grid too. */
  stale(profileId: bigint): void {
    this.distrust(profileId);
    const t = this.now();
    this.sharedUntil.set(profileId, t + this.settings.sharedForMs);
    // Old marks go once they lapse, so the map stays as small as the set of shared grids.
    if (this.sharedUntil.size > 1024) {
      for (const [id, until] of this.sharedUntil) if (until <= t) this.sharedUntil.delete(id);
    }
  }

  private forget(profileId: bigint): void {
    const e = this.records.get(profileId);
    if (!e) return;
    this.records.delete(profileId);
    this.rows -= e.size;
  }
}
