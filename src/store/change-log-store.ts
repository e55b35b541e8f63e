/**
 * Reads a grid's change log (domain/change-log.ts, cql/022_change_log.cql): the static row's
 * version, generation and `change_log` map, in one query, so the records and the head they are
 * trusted against are of one state. Writes go only through the conditional batch
 * (grid-mutation.ts). `serial` settles a Paxos round a crashed writer left open first (the
 * publisher's roll-forward must see a version that may have committed).
 */
import type { Consistency, Cql } from './cassandra.js';
import { retained, type ChangeRecord } from '../domain/change-log.js';
import { decodeChangeLog } from './change-log-codec.js';

const SELECT_LOG =
  'SELECT version, generation, change_log FROM grid_overrides WHERE profile_id = ? LIMIT 1';

export interface ChangeLog {
  readonly version: bigint;
  readonly generation: bigint;
  /** The retained records, oldest first, ending at `version` (empty for a grid never written). */
  readonly records: readonly ChangeRecord[];
}

export class ChangeLogStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
  ) {}

  async read(profileId: bigint, level: 'commit' | 'serial' = 'commit'): Promise<ChangeLog> {
    const rs = await this.db.execute(SELECT_LOG, [profileId], {
      prepare: true,
      isIdempotent: true,
      consistency: this.consistency[level],
    });
    const row = rs.first();
    const version = (row?.get('version') as bigint | null | undefined) ?? 0n;
    const generation = (row?.get('generation') as bigint | null | undefined) ?? 1n;
    const records = retained(decodeChangeLog(row?.get('change_log')), version);
    return { version, generation, records };
  }
}
