/**
 * The feed's durable store, in PostgreSQL (`--pg`, or FEED_PG_URL): what a Redis data loss must
 * not take, because nothing else holds it.
 *
 * - `follows (follower, profile)`: the follow graph. A real feed keeps it in its database of
 *   record (the seed's `follows` table); Redis holds a copy the scripts check (keys.ts).
 * - `profiles (profile, generation, version)`: per followed profile, the (generation, version)
 *   the feed has applied: the watermark a repair starts from (GET …/grid/changes?after_version=).
 * - `profile_posts (profile, post_id)`: the posts of that profile's grid as of that watermark.
 *   A follower's timeline is the union of the sets of the profiles it follows, so every Redis
 *   timeline can be rebuilt from here alone, with no grid read.
 *
 * One profile is worked on inside one transaction holding its `profiles` row (FOR UPDATE):
 * applying an event, repairing from the catch-up route, rebuilding its followers' Redis state.
 * So two consumers never interleave on one profile, and the Redis fan-out runs while the row is
 * held: a watermark committed here was fanned out first (a crash between the two redelivers the
 * entry, whose follower scripts are idempotent).
 */
import pg from 'pg';
import type { ProfileMark } from './decide.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A profile's durable state inside its transaction. */
export interface ProfileTx {
  /** undefined: the feed has applied nothing of the profile yet. */
  readonly mark: ProfileMark | undefined;
  readonly followers: string[];
  /** Adds and removes posts of the profile's set, and moves the watermark. */
  advance(mark: ProfileMark, add: readonly bigint[], remove: readonly bigint[]): Promise<void>;
  /** Replaces the profile's set (a grid read) and its watermark. */
  replace(mark: ProfileMark, posts: readonly bigint[]): Promise<void>;
  posts(): Promise<bigint[]>;
}

export class FeedStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  /** Connects and creates the schema and tables when missing. */
  static async open(url: string, schema = 'feed'): Promise<FeedStore> {
    if (!SCHEMA_NAME.test(schema)) throw new RangeError(`bad schema name: ${schema}`);
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    const c = await pool.connect();
    try {
      // Two consumers starting together would race on CREATE … IF NOT EXISTS.
      await c.query('SELECT pg_advisory_lock(hashtext($1))', [`regrid-feed:${schema}`]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${schema}.follows (
        follower text NOT NULL, profile bigint NOT NULL, PRIMARY KEY (follower, profile))`);
      await c.query(
        `CREATE INDEX IF NOT EXISTS follows_by_profile ON ${schema}.follows (profile, follower)`,
      );
      await c.query(`CREATE TABLE IF NOT EXISTS ${schema}.profiles (
        profile bigint PRIMARY KEY, generation bigint, version bigint)`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${schema}.profile_posts (
        profile bigint NOT NULL, post_id bigint NOT NULL, PRIMARY KEY (profile, post_id))`);
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [`regrid-feed:${schema}`]);
    } finally {
      c.release();
    }
    return new FeedStore(pool, schema);
  }

  async follow(follower: string, profile: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.schema}.follows (follower, profile) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [follower, profile],
    );
  }

  async unfollow(follower: string, profile: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM ${this.schema}.follows WHERE follower = $1 AND profile = $2`,
      [follower, profile],
    );
  }

  async followersOf(profile: string): Promise<string[]> {
    const r = await this.pool.query<{ follower: string }>(
      `SELECT follower FROM ${this.schema}.follows WHERE profile = $1 ORDER BY follower`,
      [profile],
    );
    return r.rows.map((row) => row.follower);
  }

  /** The whole graph, by follower (for --check). */
  async follows(): Promise<Array<{ follower: string; profiles: string[] }>> {
    const r = await this.pool.query<{ follower: string; profile: string }>(
      `SELECT follower, profile::text FROM ${this.schema}.follows ORDER BY follower, profile`,
    );
    const out = new Map<string, string[]>();
    for (const { follower, profile } of r.rows) {
      const list = out.get(follower) ?? [];
      list.push(profile);
      out.set(follower, list);
    }
    return [...out].map(([follower, profiles]) => ({ follower, profiles }));
  }

  /** Every profile someone follows (what a recovery repairs). */
  async followedProfiles(): Promise<string[]> {
    const r = await this.pool.query<{ profile: string }>(
      `SELECT DISTINCT profile::text FROM ${this.schema}.follows ORDER BY 1`,
    );
    return r.rows.map((row) => row.profile);
  }

  /**
   * Runs `work` in one transaction holding the profile's row; commits what it did, rolls back
   * when it throws (the Redis effects it had are idempotent and are redone by the redelivery).
   */
  async withProfile<T>(profile: string, work: (tx: ProfileTx) => Promise<T>): Promise<T> {
    const s = this.schema;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`INSERT INTO ${s}.profiles (profile) VALUES ($1) ON CONFLICT DO NOTHING`, [
        profile,
      ]);
      const row = await c.query<{ generation: string | null; version: string | null }>(
        `SELECT generation, version FROM ${s}.profiles WHERE profile = $1 FOR UPDATE`,
        [profile],
      );
      const followers = await c.query<{ follower: string }>(
        `SELECT follower FROM ${s}.follows WHERE profile = $1 ORDER BY follower`,
        [profile],
      );
      const r = row.rows[0];
      let mark: ProfileMark | undefined =
        r?.version == null
          ? undefined
          : {
              generation: r.generation == null ? undefined : BigInt(r.generation),
              version: BigInt(r.version),
            };
      const setMark = async (m: ProfileMark) => {
        await c.query(`UPDATE ${s}.profiles SET generation = $2, version = $3 WHERE profile = $1`, [
          profile,
          m.generation?.toString() ?? null,
          m.version.toString(),
        ]);
        mark = m;
      };
      const tx: ProfileTx = {
        get mark() {
          return mark;
        },
        followers: followers.rows.map((f) => f.follower),
        async advance(m, add, remove) {
          if (add.length > 0) {
            await c.query(
              `INSERT INTO ${s}.profile_posts (profile, post_id)
               SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`,
              [profile, add.map(String)],
            );
          }
          if (remove.length > 0) {
            await c.query(
              `DELETE FROM ${s}.profile_posts WHERE profile = $1 AND post_id = ANY($2::bigint[])`,
              [profile, remove.map(String)],
            );
          }
          await setMark(m);
        },
        async replace(m, posts) {
          await c.query(`DELETE FROM ${s}.profile_posts WHERE profile = $1`, [profile]);
          await tx.advance(m, posts, []);
        },
        async posts() {
          const p = await c.query<{ post_id: string }>(
            `SELECT post_id FROM ${s}.profile_posts WHERE profile = $1`,
            [profile],
          );
          return p.rows.map((x) => BigInt(x.post_id));
        },
      };
      const result = await work(tx);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
