/**
 * The stored form of the idempotency request ring (`recent_requests`, a frozen list of the
 * `committed_request` UDT in the override partition's static row): read with the grid's head,
 * written in the grid's compare-and-set (grid-mutation.ts). docs/idempotency.md.
 */
import type { RingEntry } from '../domain/request-ring.js';

/** UDT rows (`committed_request`) → domain entries. Tolerates a missing cell (empty ring). */
export function decodeRing(value: unknown): RingEntry[] {
  if (!Array.isArray(value)) return [];
  return value.map((u: Record<string, unknown>) => ({
    keyHash: (u['key_hash'] as Buffer).toString('hex'),
    fingerprint: (u['fingerprint'] as Buffer).toString('hex'),
    version: u['version'] as bigint,
    at: (u['at'] as Date).getTime(),
    outcome: u['outcome'] as string,
  }));
}

/** Domain entries → the value bound to `recent_requests` in the grid's CAS batch. */
export function encodeRing(ring: readonly RingEntry[]): Record<string, unknown>[] {
  return ring.map((e) => ({
    key_hash: Buffer.from(e.keyHash, 'hex'),
    fingerprint: Buffer.from(e.fingerprint, 'hex'),
    version: e.version,
    at: new Date(e.at),
    outcome: e.outcome,
  }));
}
