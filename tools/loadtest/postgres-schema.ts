/**
 * The seed design's PostgreSQL schema (design article §3.3) and the connection the load tester's
 * PostgreSQL peer runs on. The tables live in a schema of their own that is dropped and rebuilt
 * at the start of every run, so reruns start clean and nothing else in the database is touched.
 *
 * The DDL is the article's, in its final shape: the `grid_entry` list with the two nullable
 * columns (sort_key, moved_version), the display index on the effective key, and the per-profile
 * version row `grid_order` that every grid write locks first. CONCURRENTLY is left out: the
 * tables are empty when the index is built, and it cannot run inside the DDL transaction.
 */
import pg from 'pg';
import { DesignUnavailable } from './design.js';

const CONNECT_TIMEOUT_MS = 3_000;

/** Nothing answered at the URL (or it refused us): the design is skipped, not a crash. */
const unavailable = (url: string, cause: unknown) =>
  new DesignUnavailable(
    `PostgreSQL at ${redact(url)} did not answer (${(cause as Error)?.message ?? String(cause)})`,
  );

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

const ddl = (schema: string) => `
DROP SCHEMA IF EXISTS ${schema} CASCADE;
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.grid_entry (
  profile_id bigint NOT NULL,
  post_id bigint NOT NULL,
  sort_key bigint,
  moved_version bigint,
  PRIMARY KEY (profile_id, post_id)
);
CREATE INDEX grid_entry_display ON ${schema}.grid_entry
  (profile_id, (coalesce(sort_key, post_id)) DESC, post_id DESC);
CREATE TABLE ${schema}.grid_order (
  profile_id bigint PRIMARY KEY,
  version bigint NOT NULL DEFAULT 0
);`;

/** SQL identifiers are interpolated into DDL and queries: only plain lower-case names. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name '${schema}'`);
  return schema;
}

/**
 * A pool on `url` with `size` connections, every session's search_path set to `schema` and
 * int8 returned as bigint. When the database itself is missing it is created first (through the
 * server's `postgres` database). Throws DesignUnavailable when nothing answers.
 */
export async function openPool(url: string, size: number, schema: string): Promise<pg.Pool> {
  checkSchemaName(schema);
  const probe = async () => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    await client.connect();
    await client.end();
  };
  try {
    await probe();
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw unavailable(url, err);
    await createDatabase(url).catch((e: unknown) => {
      throw unavailable(url, e);
    });
  }
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === pg.types.builtins.INT8 ? BigInt : pg.types.getTypeParser(oid, format as 'text'),
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: `-c search_path=${schema}`,
    types,
  });
  // An idle connection dropped by the server: the pool replaces it on the next checkout, and the
  // moves that were using connections fail on their own. Unhandled, the event would end the run.
  pool.on('error', () => {});
  return pool;
}

async function createDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const admin = new pg.Client({
    connectionString: u.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Another run created it in between: fine.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await admin.end();
  }
}

/** Drops and recreates the benchmark schema (the run's tables start empty). */
export async function resetSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(ddl(checkSchemaName(schema)));
}
