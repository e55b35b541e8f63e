/**
 * Cassandra adapter for Idempotency-Key records (cql/010_idempotency.cql, docs/idempotency.md).
 *
 * The `idempotency_keys` table: one single-row partition per (scope, key), claimed with an LWT so
 * that concurrent duplicates see each other (409), holding the finished response for the
 * retention period (TTL). The grid's own `recent_requests` cell is request-ring-codec.ts's.
 *
 * Every write of a record rewrites all of its columns with the same TTL, so the row always
 * expires as a whole (a partial leftover row would block the next claim). Nothing here binds
 * `null`: optional columns are left unset.
 *
 * A claim, a takeover and a release are the key's bookkeeping, not the request's write, so they
 * run outside the request's statement scope (statement-scope.ts): a claim that landed does not make a
 * later failure of the grid write "outcome unknown" (it says nothing about the grid), and a
 * request the deadline answered "not applied" can still hand its key back.
 */
import { types } from 'cassandra-driver';
import { DomainError } from '../domain/errors.js';
import type { Cql } from './cassandra.js';
import type { StatementScope } from './statement-scope.js';
import { isCasTimeout } from './cql-errors.js';

export type RecordState = 'in_flight' | 'done';

export interface IdempotencyRecord {
  readonly fingerprint: Buffer;
  readonly state: RecordState;
  readonly owner: string;
  readonly leaseUntil: Date;
  /** Grid version read just before the first claim (`request-ring.ts`). */
  readonly claimedAt: bigint;
  readonly status?: number;
  readonly body?: string;
}

export type ClaimResult =
  { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyRecord };

const COLUMNS = 'fingerprint, state, owner, lease_until, claimed_at, status, body';

export class IdempotencyStore {
  constructor(
    private readonly cql: Cql,
    /** Retention period in seconds (IDEMPOTENCY_TTL_S). */
    private readonly ttlS: number,
  ) {}

  /** Claims (scope, key) for `rec.owner` unless a record exists; then returns that record. */
  async claim(scope: bigint, key: string, rec: IdempotencyRecord): Promise<ClaimResult> {
    const rs = await this.lwt(
      `INSERT INTO idempotency_keys (scope, key, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       IF NOT EXISTS USING TTL ?`,
      [scope, key, ...bindRecord(rec), this.ttlS],
    );
    if (rs.wasApplied()) return { claimed: true };
    const existing = decodeRecord(rs.first());
    // A row without its core columns cannot be a live record (all columns share one TTL), but
    // report it as an expired in-flight claim rather than trust it.
    return { claimed: false, existing: existing ?? expiredClaim(rec) };
  }

  /** Re-owns an in-flight record whose lease ran out. LWT on the previous owner. */
  async takeOver(
    scope: bigint,
    key: string,
    previousOwner: string,
    rec: IdempotencyRecord,
  ): Promise<boolean> {
    const rs = await this.lwt(
      `UPDATE idempotency_keys USING TTL ?
       SET fingerprint = ?, state = ?, owner = ?, lease_until = ?, claimed_at = ?, status = ?, body = ?
       WHERE scope = ? AND key = ? IF owner = ? AND state = 'in_flight'`,
      [this.ttlS, ...bindRecord(rec), scope, key, types.Uuid.fromString(previousOwner)],
    );
    return rs.wasApplied();
  }

  /**
   * A claim's Paxos round that timed out (on a ring, replicas that stopped answering) may or may
   * not hold the key now; the Cql wrapper leaves such timeouts raw for the grid writer, so say it
   * here, or it would surface as a 500. The client's retry with the same key settles it.
   */
  private async lwt(query: string, params: unknown[]) {
    try {
      // No statement scope: a claim is not the request's write (its deadline answers alone).
      return await this.cql.execute(query, params, { prepare: true });
    } catch (err) {
      if (!isCasTimeout(err)) throw err;
      throw new DomainError(
        'write_outcome_unknown',
        'claiming the Idempotency-Key timed out in Cassandra; retry with the same key',
        { retry_after_s: 1 },
        { cause: err },
      );
    }
  }

  /**
   * Records the final state (done + response, or in_flight with an expired lease to release the
   * claim after a failure). A plain write: the outcome itself is anchored in the grid's ring, so
   * two attempts racing here can only write the same response.
   */
  async put(
    scope: bigint,
    key: string,
    rec: IdempotencyRecord,
    statements?: StatementScope,
  ): Promise<void> {
    await this.cql.execute(
      `INSERT INTO idempotency_keys (scope, key, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       USING TTL ?`,
      [scope, key, ...bindRecord(rec), this.ttlS],
      { prepare: true, scope: statements },
    );
  }

  /** Hands an unfinished claim back (`rec` with its lease in the past), outside the request. */
  release(scope: bigint, key: string, rec: IdempotencyRecord): Promise<void> {
    return this.put(scope, key, rec); // in no request's statement scope
  }

  async get(scope: bigint, key: string): Promise<IdempotencyRecord | undefined> {
    const rs = await this.cql.execute(
      `SELECT ${COLUMNS} FROM idempotency_keys WHERE scope = ? AND key = ?`,
      [scope, key],
      { prepare: true, isIdempotent: true },
    );
    return decodeRecord(rs.first());
  }
}

function bindRecord(r: IdempotencyRecord): unknown[] {
  return [
    r.fingerprint,
    r.state,
    types.Uuid.fromString(r.owner),
    r.leaseUntil,
    r.claimedAt,
    r.status, // undefined = unset, never null
    r.body,
  ];
}

function decodeRecord(row: types.Row | null | undefined): IdempotencyRecord | undefined {
  if (!row || row['fingerprint'] == null || row['state'] == null || row['owner'] == null) {
    return undefined;
  }
  return {
    fingerprint: row['fingerprint'] as Buffer,
    state: row['state'] as RecordState,
    owner: String(row['owner']),
    leaseUntil: (row['lease_until'] as Date | null) ?? new Date(0),
    claimedAt: (row['claimed_at'] as bigint | null) ?? 0n,
    ...(row['status'] != null ? { status: row['status'] as number } : {}),
    ...(row['body'] != null ? { body: row['body'] as string } : {}),
  };
}

const expiredClaim = (like: IdempotencyRecord): IdempotencyRecord => ({
  ...like,
  owner: types.Uuid.random().toString(),
  leaseUntil: new Date(0),
});
