/**
 * Undo records of moves (`grid_moves`, cql/012_moves.cql): what the post's position was before
 * a move, so the move can be undone. Written after the move's commit with a TTL; read only by the
 * undo route. Optional columns are left unset (never null).
 */
import { types } from 'cassandra-driver';
import type { Consistency, Cql } from './cassandra.js';

export interface MoveRecord {
  readonly profileId: bigint;
  readonly moveId: string;
  readonly postId: bigint;
  readonly prevKey: bigint | undefined;
  readonly prevAfter: bigint | undefined;
  /** Set once the move committed (undefined: it may not have, or the process died before). */
  readonly version: bigint | undefined;
  readonly relabelled: number | undefined;
}

const INSERT = `INSERT INTO grid_moves (profile_id, move_id, post_id, prev_key, prev_after, version, relabelled)
  VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`;
const SET_OUTCOME = `UPDATE grid_moves USING TTL ? SET version = ?, relabelled = ?
  WHERE profile_id = ? AND move_id = ?`;
const SELECT = `SELECT post_id, prev_key, prev_after, version, relabelled FROM grid_moves
  WHERE profile_id = ? AND move_id = ?`;

export class MovesStore {
  constructor(
    private readonly db: Cql,
    private readonly consistency: Consistency,
    private readonly ttlS: number,
  ) {}

  async put(r: MoveRecord): Promise<void> {
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
      { prepare: true, consistency: this.consistency.commit },
    );
  }

  /** Records what the move committed (same TTL as the record). */
  async setOutcome(profileId: bigint, moveId: string, version: bigint, relabelled: number) {
    await this.db.execute(
      SET_OUTCOME,
      [this.ttlS, version, relabelled, profileId, types.Uuid.fromString(moveId)],
      { prepare: true, consistency: this.consistency.commit },
    );
  }

  async get(profileId: bigint, moveId: string): Promise<MoveRecord | undefined> {
    const rs = await this.db.execute(SELECT, [profileId, types.Uuid.fromString(moveId)], {
      prepare: true,
      consistency: this.consistency.commit,
      isIdempotent: true,
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
