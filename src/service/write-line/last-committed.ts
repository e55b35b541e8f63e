/**
 * LastCommitted: per grid, the newest state this process committed (`newest`), the evidence that
 * a head read behind it lost versions this process acknowledged (commit.ts `versionFloor`), so
 * the grid's next write moves it to a new generation. A few dozen bytes a grid, bounded by
 * `NEWEST_MAX` grids, least recently committed first out.
 */
import { compareGridVersions, type GridVersion } from '../../domain/grid-version.js';

/** Grids whose newest committed state is kept. */
const NEWEST_MAX = 100_000;

export class LastCommitted {
  private readonly newestOf = new Map<bigint, GridVersion>();

  /** A batch applied and left `head`. */
  committed(profileId: bigint, head: GridVersion): void {
    const before = this.newestOf.get(profileId);
    this.newestOf.delete(profileId); // most recently committed last
    const { generation, version } = head;
    const newest =
      before && compareGridVersions(before, head) > 0 ? before : { generation, version };
    this.newestOf.set(profileId, newest);
    if (this.newestOf.size > NEWEST_MAX) this.newestOf.delete(this.newestOf.keys().next().value!);
  }

  /** The newest state this process committed on the grid (while it is among the kept ones). */
  newest(profileId: bigint): GridVersion | undefined {
    return this.newestOf.get(profileId);
  }
}
