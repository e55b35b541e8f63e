/**
 * The home regions of every grid (cql/024_home_region.cql), for `regrid region failover`: a scan
 * of the override partitions' static `home_region`, one row per partition (`SELECT DISTINCT`
 * reads the partition keys and statics only, no override rows), paged by the driver in token
 * order. Cost: one pass over every replica set's partitions of `grid_overrides`, like a
 * `SELECT DISTINCT` count (docs/regions.md "Home regions"); never on a request path.
 */
import type { Consistency, Cql } from './cassandra.js';

const SCAN = 'SELECT DISTINCT profile_id, home_region FROM grid_overrides';

export interface GridHome {
  readonly profileId: bigint;
  /** Undefined: no home set. */
  readonly homeRegion: string | undefined;
}

export class HomeRegionStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  /** Every grid's home, page by page (`pageSize` partitions a round trip). */
  async *homes(pageSize = 500): AsyncGenerator<GridHome[], void, undefined> {
    let pageState: string | undefined;
    do {
      const rs = await this.db.execute(SCAN, [], {
        prepare: true,
        consistency: this.consistency.commit,
        isIdempotent: true,
        fetchSize: pageSize,
        ...(pageState ? { pageState } : {}),
      });
      pageState = rs.pageState ?? undefined;
      yield rs.rows.map((r) => ({
        profileId: r.get('profile_id') as bigint,
        homeRegion: (r.get('home_region') as string | null) ?? undefined,
      }));
    } while (pageState);
  }
}
