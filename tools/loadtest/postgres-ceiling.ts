/**
 * PostgreSQL's floor for the seed design's moves, the peer of raw-ceiling.ts: bare transactions
 * with nothing but what a one-row move commits — lock and bump the profile's version row
 * (`grid_order`, the statement every grid write starts with) and rewrite one `grid_entry` row's
 * key — on fresh profiles of their own, with no anchor read, no key engine, no relabel.
 *
 * `distinct`: every writer on its own profile (no lock waits); `one`: one writer on one profile,
 * each transaction sent when the previous one committed (the row's serial floor).
 */
import type pg from 'pg';
import type { CeilingRequest, RawCeilingFigures } from './design.js';
import { SQL } from './postgres-sql.js';

export async function measurePostgresFloor(
  pool: pg.Pool,
  profileIds: readonly bigint[],
  o: CeilingRequest,
): Promise<RawCeilingFigures> {
  const writers = o.partitions === 'one' ? 1 : o.concurrency;
  const mine = profileIds.slice(0, o.partitions === 'one' ? 1 : writers);
  if (mine.length < writers) throw new Error('need one floor profile per writer');
  for (const p of mine) {
    await pool.query(SQL.bump([p]));
    await pool.query(
      `INSERT INTO grid_entry (profile_id, post_id)
       SELECT $1, g FROM generate_series(1, $2::int) AS g`,
      [p, o.posts],
    );
  }
  let issued = 0;
  let failed = 0;
  const writer = async (w: number) => {
    const c = await pool.connect();
    let broken = false;
    try {
      const profileId = mine[w]!;
      for (let n = 0; issued < o.batches; n++) {
        issued++;
        try {
          await c.query('BEGIN ISOLATION LEVEL READ COMMITTED');
          const version = (await c.query<{ version: bigint }>(SQL.bump([profileId]))).rows[0]!
            .version;
          const postId = BigInt((n % o.posts) + 1);
          await c.query(SQL.moveRow([profileId, postId, version * 1_000_003n, version]));
          await c.query('COMMIT');
        } catch {
          failed++;
          await c.query('ROLLBACK').catch(() => (broken = true));
        }
        o.onBatch?.();
      }
    } finally {
      c.release(broken);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  const seconds = (performance.now() - start) / 1000;
  // A bump never "does not apply": the row lock makes writers wait instead.
  return {
    batches: issued,
    seconds,
    perSecond: (issued - failed) / seconds,
    notApplied: 0,
    failed,
  };
}
