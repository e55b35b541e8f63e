/**
 * A platform's own table of posts, read by `regrid import` (service/import/). Read only: this
 * module issues SELECTs and nothing else, against any keyspace of the configured cluster.
 *
 * The table is scanned by slices of the token ring (`token(<partition key>) >= ? AND <= ?`, paged),
 * so slices run in parallel and a killed import redoes only the slices it had not finished. Rows
 * of one partition come together within a slice, which is what lets the importer group them by
 * profile when the profile is (part of) the partition key.
 *
 * Column names come from the command line, so each is checked as a plain CQL identifier and
 * double-quoted: nothing else can reach the statement's text.
 */
import type { types } from 'cassandra-driver';
import type { SourceRow, TokenSlice } from '../domain/import-plan.js';
import type { Consistency, Cql } from './cassandra.js';

export interface SourceColumns {
  readonly profile: string;
  readonly post: string;
  readonly created?: string | undefined;
  readonly caption?: string | undefined;
  readonly media?: string | undefined;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;
const quoted = (name: string, what: string) => {
  if (!IDENTIFIER.test(name)) throw new Error(`${what} is not a CQL identifier: ${name}`);
  return `"${name}"`;
};

const PARTITION_KEY =
  'SELECT column_name, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?';

export class SourceTable {
  private statement: string | undefined;

  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
    readonly keyspace: string,
    readonly table: string,
    private readonly columns: SourceColumns,
  ) {
    quoted(keyspace, 'keyspace');
    quoted(table, 'table');
  }

  /** `keyspace.table`, as a checkpoint names its source. */
  get name(): string {
    return `${this.keyspace}.${this.table}`;
  }

  /** The slice's rows in token order, `pageSize` per round trip. */
  async *scan(slice: TokenSlice, pageSize = 1000): AsyncGenerator<SourceRow> {
    const query = await this.selectStatement();
    let pageState: string | undefined;
    do {
      const rs: types.ResultSet = await this.db.execute(query, [slice.lo, slice.hi], {
        prepare: true,
        fetchSize: pageSize,
        consistency: this.consistency.commit,
        isIdempotent: true,
        ...(pageState ? { pageState } : {}),
      });
      for (const row of rs.rows) yield this.rowOf(row);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
  }

  /**
   * The row in the service route's wire form (IDs as decimal strings, the time as RFC 3339), so
   * the importer checks it by the API's rule (domain/import-plan.ts `checkRow`); `at` is its key.
   */
  private rowOf(row: types.Row): SourceRow {
    const c = this.columns;
    const value = (name: string | undefined): unknown => {
      const v: unknown = name === undefined ? undefined : row.get(name);
      return v === null ? undefined : v;
    };
    // bigint (or int) columns come as bigint or number; anything else goes to the rule as it is.
    const id = (name: string) => {
      const v = value(name);
      return typeof v === 'bigint' || typeof v === 'number' ? String(v) : v;
    };
    const created = value(c.created);
    const profile = id(c.profile);
    const post = id(c.post);
    return {
      at: `${c.profile}=${String(profile)} ${c.post}=${String(post)}`,
      fields: {
        profile_id: profile,
        post_id: post,
        created_at:
          created instanceof Date && !Number.isNaN(created.getTime())
            ? created.toISOString()
            : created,
        caption: value(c.caption),
        media_url: value(c.media),
      },
    };
  }

  private async selectStatement(): Promise<string> {
    if (this.statement) return this.statement;
    const rs = await this.db.execute(PARTITION_KEY, [this.keyspace, this.table], {
      prepare: true,
      isIdempotent: true,
    });
    const key = rs.rows
      .filter((r) => r.get('kind') === 'partition_key')
      .sort((a, b) => (a.get('position') as number) - (b.get('position') as number))
      .map((r) => quoted(r.get('column_name') as string, 'partition key column'));
    if (key.length === 0) throw new Error(`no table ${this.name} (or it has no partition key)`);
    const c = this.columns;
    const wanted = [c.profile, c.post, c.created, c.caption, c.media].filter(
      (n): n is string => n !== undefined,
    );
    const select = wanted.map((n) => quoted(n, 'column')).join(', ');
    const token = `token(${key.join(', ')})`;
    this.statement = `SELECT ${select} FROM ${quoted(this.keyspace, 'keyspace')}.${quoted(this.table, 'table')} WHERE ${token} >= ? AND ${token} <= ?`;
    return this.statement;
  }
}
