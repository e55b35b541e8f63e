/**
 * Leases an ID worker number (the 13-bit field of post IDs) from Cassandra, so several processes
 * never issue IDs with the same worker field.
 *
 * Claim: `INSERT … IF NOT EXISTS USING TTL` on `id_worker_leases`, probing numbers from a random
 * start. Renew: `UPDATE … USING TTL … IF owner = ?` every `ttl/3`, which re-writes the cells with
 * a fresh TTL (the row lives as long as one of its cells does). If a renewal finds the lease
 * gone or owned by someone else (this process stalled longer than the TTL), `onLost` fires: the
 * process must stop issuing IDs. Expired TTL cells become tombstones, which is fine here: this
 * table is read once per claim, never on the grid path.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { types } from 'cassandra-driver';
import type { Cql } from './cassandra.js';
import { MAX_WORKER } from '../domain/ids.js';

export interface WorkerLease {
  readonly worker: number;
  readonly owner: string;
  /** Stops renewing and gives the number back (best effort). */
  release(): Promise<void>;
}

export interface LeaseOptions {
  readonly ttlSeconds?: number;
  readonly onLost?: (worker: number, reason: string) => void;
}

const CLAIM =
  'INSERT INTO id_worker_leases (worker, owner, leased_at) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?';
const RENEW =
  'UPDATE id_worker_leases USING TTL ? SET owner = ?, leased_at = ? WHERE worker = ? IF owner = ?';
const RELEASE = 'DELETE FROM id_worker_leases WHERE worker = ? IF owner = ?';

const LWT = {
  prepare: true,
  consistency: types.consistencies.quorum,
  serialConsistency: types.consistencies.serial,
};

export async function leaseWorker(db: Cql, options: LeaseOptions = {}): Promise<WorkerLease> {
  const ttl = options.ttlSeconds ?? 60;
  const owner = randomUUID();
  const start = randomInt(MAX_WORKER + 1);
  const probes = Math.min(64, MAX_WORKER + 1);
  for (let i = 0; i < probes; i++) {
    const worker = (start + i) % (MAX_WORKER + 1);
    const rs = await db.execute(CLAIM, [worker, owner, new Date(), ttl], LWT);
    if (rs.wasApplied()) return startRenewal(db, worker, owner, ttl, options.onLost);
  }
  throw new Error(`no free ID worker number after ${probes} probes`);
}

function startRenewal(
  db: Cql,
  worker: number,
  owner: string,
  ttl: number,
  onLost: LeaseOptions['onLost'],
): WorkerLease {
  let stopped = false;
  const renew = async () => {
    try {
      const rs = await db.execute(RENEW, [ttl, owner, new Date(), worker], LWT);
      if (!rs.wasApplied() && !stopped) {
        stopped = true;
        clearInterval(timer);
        onLost?.(worker, 'lease expired or taken by another process');
      }
    } catch {
      // Transient: the next tick retries; the TTL is three renewal periods long.
    }
  };
  const timer = setInterval(() => void renew(), Math.max(1, Math.floor(ttl / 3)) * 1000);
  timer.unref();
  return {
    worker,
    owner,
    async release() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await db.execute(RELEASE, [worker, owner], LWT).catch(() => undefined);
    },
  };
}

/** The configured worker number, else a leased one. */
export async function resolveWorker(
  db: Cql,
  configured: number | undefined,
  options: LeaseOptions = {},
): Promise<WorkerLease> {
  if (configured !== undefined) {
    return { worker: configured, owner: 'config', release: async () => undefined };
  }
  return leaseWorker(db, options);
}
