/**
 * Undo records of moves in `grid_moves` (cql/012_moves.cql), as releases before the undo ring
 * (domain/undo-ring.ts) wrote them: read by the undo route for moves the ring does not hold.
 * `put` remains for tests and tooling that seed such records. Optional columns are left unset
 * (never null).
 */
import { types } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';

export interface MoveRecord {
  readonly profileId: bigint;
  readonly moveId: string;
  readonly postId: bigint;
  readonly prevKey: bigint | undefined;
  readonly prevAfter: bigint | undefined;
  /** The version the move commits (undefined: a record an older release wrote before its move). */
  readonly version: bigint | undefined;
  readonly relabelled: number | undefined;
}

/** `relabelled` when an earlier attempt's outcome is unknown: never an exact restore. */
export const UNKNOWN_RELABELS = -1;

const INSERT = `INSERT INTO grid_moves (profile_id, move_id, post_id, prev_key, prev_after, version, relabelled)
  VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`;
const SELECT = `SELECT post_id, prev_key, prev_after, version, relabelled FROM grid_moves
  WHERE profile_id = ? AND move_id = ?`;

export class MovesStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
    /** How long a move can be undone (the undo ring uses the same retention). */
    readonly ttlS: number,
  ) {}

  async put(r: MoveRecord, scope: StatementScope | undefined): Promise<void> {
    await this.db.execute(
      INSERT,
      [
        r.profileId,
        types.Uuid.fromString(r.moveId),
        r.postId,
        r.prevKey,
        r.prevAfter,
        r.version,
        r.relabelled,
        this.ttlS,
      ],
      { prepare: true, consistency: this.consistency.commit, scope },
    );
  }

  async get(profileId: bigint, moveId: string, scope?: StatementScope) {
    const rs = await this.db.execute(SELECT, [profileId, types.Uuid.fromString(moveId)], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
      scope,
    });
    const row = rs.first();
    if (!row) return undefined;
    return {
      profileId,
      moveId,
      postId: row.get('post_id') as bigint,
      prevKey: (row.get('prev_key') as bigint | null) ?? undefined,
      prevAfter: (row.get('prev_after') as bigint | null) ?? undefined,
      version: (row.get('version') as bigint | null) ?? undefined,
      relabelled: (row.get('relabelled') as number | null) ?? undefined,
    };
  }
}
