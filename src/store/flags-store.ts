/**
 * Operational flags in Cassandra (cql/015_flags.cql): one partition per scope, so "every flag of
 * this fleet" is one single-partition read. Writes are plain upserts at the commit consistency:
 * a flag flip is idempotent and last-writer-wins is exactly what an operator means.
 */
import type { Consistency, Cql } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

const READ_SCOPE = 'SELECT name, enabled FROM flags WHERE scope = ?';
const UPSERT = 'UPDATE flags SET enabled = ?, updated_at = ? WHERE scope = ? AND name = ?';

export class FlagsStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
    private readonly scope: string,
  ) {}

  /** Every flag row of the scope; flags without a row are absent from the map. */
  async readAll(): Promise<Map<string, boolean>> {
    const rs = await this.db.execute(READ_SCOPE, [this.scope], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
    });
    const out = new Map<string, boolean>();
    for (const row of rs.rows) {
      const enabled = row.get('enabled') as boolean | null;
      if (enabled !== null) out.set(row.get('name') as string, enabled);
    }
    return out;
  }

  async set(name: string, enabled: boolean, statements: StatementScope | undefined): Promise<void> {
    await this.db.execute(UPSERT, [enabled, new Date(), this.scope, name], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
      scope: statements,
    });
  }
}
