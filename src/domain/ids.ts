/**
 * Time-ordered 64-bit post IDs.
 *
 * Layout, most significant bit first (the top bit stays 0 so IDs are positive signed bigints,
 * which is what Cassandra's `bigint` holds):
 *
 *   | 1 bit: 0 | 40 bits: ms since REGRID_EPOCH | 13 bits: worker | 10 bits: sequence |
 *
 * One millisecond is 2^23 ID units, so two posts made one second apart are ~2^33 apart: room for
 * ~32 midpoints before a relabel. 40 bits of milliseconds last ~34.8 years from the epoch.
 *
 * Uniqueness across processes comes from the worker field: each process owns one worker number
 * (configured, or leased from Cassandra, see src/store/worker-lease.ts), and within a process the
 * sequence disambiguates IDs of the same millisecond. When the wall clock goes backwards the
 * generator never issues a smaller timestamp: it keeps using the last millisecond it issued and,
 * once that millisecond's 1024 sequence numbers are spent, borrows the next millisecond. IDs stay
 * strictly increasing per worker; they run slightly ahead of the clock until it catches up.
 */
import { DomainError } from './errors.js';

// Instagram's era. IDs issued in 2026 are about 2^61.8; they pass 2^62 in June 2028.
export const REGRID_EPOCH_MS = Date.UTC(2011, 0, 1);
export const WORKER_BITS = 13n;
export const SEQUENCE_BITS = 10n;
export const TIMESTAMP_SHIFT = WORKER_BITS + SEQUENCE_BITS; // 23
export const MAX_WORKER = (1 << Number(WORKER_BITS)) - 1;
const MAX_SEQUENCE = (1 << Number(SEQUENCE_BITS)) - 1;
export const MAX_ID = (1n << 63n) - 1n; // Cassandra bigint is signed 64-bit
export const MAX_TIMESTAMP_MS = (1n << 40n) - 1n;

export interface IdParts {
  readonly ms: number; // unix milliseconds
  readonly worker: number;
  readonly sequence: number;
}

export function composeId({ ms, worker, sequence }: IdParts): bigint {
  const since = BigInt(ms - REGRID_EPOCH_MS);
  if (since < 0n || since > MAX_TIMESTAMP_MS) throw new RangeError(`timestamp out of range: ${ms}`);
  if (worker < 0 || worker > MAX_WORKER) throw new RangeError(`worker out of range: ${worker}`);
  if (sequence < 0 || sequence > MAX_SEQUENCE) throw new RangeError(`sequence out of range`);
  return (since << TIMESTAMP_SHIFT) | (BigInt(worker) << SEQUENCE_BITS) | BigInt(sequence);
}

export function decomposeId(id: bigint): IdParts {
  return {
    ms: Number(id >> TIMESTAMP_SHIFT) + REGRID_EPOCH_MS,
    worker: Number((id >> SEQUENCE_BITS) & BigInt(MAX_WORKER)),
    sequence: Number(id & BigInt(MAX_SEQUENCE)),
  };
}

/** Creation time of a post, recovered from its ID. */
export const idToDate = (id: bigint): Date => new Date(decomposeId(id).ms);

/** Smallest ID that could have been issued at `ms` (for time-range queries). */
export const lowestIdAt = (ms: number): bigint => composeId({ ms, worker: 0, sequence: 0 });

/** Per-process generator of strictly increasing IDs. `now` is injectable for tests. */
export class IdGenerator {
  private lastMs = -1;
  private sequence = 0;

  constructor(
    readonly worker: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(worker) || worker < 0 || worker > MAX_WORKER) {
      throw new RangeError(`worker must be an integer in 0..${MAX_WORKER}`);
    }
  }

  next(): bigint {
    const wall = this.now();
    if (wall > this.lastMs) {
      this.lastMs = wall;
      this.sequence = 0;
    } else if (this.sequence < MAX_SEQUENCE) {
      // Same millisecond, or the clock went backwards: stay on lastMs.
      this.sequence += 1;
    } else {
      // Sequence spent: borrow the next millisecond rather than wait or repeat.
      this.lastMs += 1;
      this.sequence = 0;
    }
    return composeId({ ms: this.lastMs, worker: this.worker, sequence: this.sequence });
  }
}

/**
 * The one spelling of an ID from the outside world: canonical decimal, no sign, no leading zero,
 * no whitespace, so one ID has exactly one spelling (and one idempotency fingerprint). Shared by
 * `parseId` and the request schema `IdString`.
 */
export const CANONICAL_ID = /^[1-9][0-9]{0,18}$/;

/** Parses a decimal-string ID from the outside world. IDs are positive signed 64-bit values. */
export function parseId(text: string, what = 'id'): bigint {
  if (!CANONICAL_ID.test(text)) {
    throw new DomainError(
      'invalid_request',
      `${what} must be a positive decimal string without leading zeros`,
      {
        field: what,
      },
    );
  }
  const id = BigInt(text);
  if (id <= 0n || id > MAX_ID) {
    throw new DomainError('invalid_request', `${what} is out of range (1..2^63-1)`, {
      field: what,
    });
  }
  return id;
}

/** How far ahead of this process's clock a platform's post ID may be (their clocks differ). */
export const REGISTERED_ID_MAX_AHEAD_MS = 5 * 60_000;

/**
 * The rule for a post a platform registers under its own ID (docs/integration.md): the ID is in
 * regrid's layout, its timestamp is not in the future (a post from the future would sit above
 * every new post until then), and when the platform also gives `createdAt` the two agree to the
 * millisecond. Returns the creation time; throws `invalid_request` naming what is wrong.
 */
export function registeredCreatedAt(
  postId: bigint,
  createdAt: Date | undefined,
  nowMs: number = Date.now(),
): Date {
  const { ms } = decomposeId(postId);
  if (ms > nowMs + REGISTERED_ID_MAX_AHEAD_MS) {
    throw new DomainError('invalid_request', 'post_id encodes a time in the future', {
      field: 'post_id',
      encoded_at: new Date(ms).toISOString(),
    });
  }
  if (createdAt !== undefined && createdAt.getTime() !== ms) {
    throw new DomainError(
      'invalid_request',
      `created_at must be the time post_id encodes (${new Date(ms).toISOString()}), to the millisecond`,
      { field: 'created_at', encoded_at: new Date(ms).toISOString() },
    );
  }
  return new Date(ms);
}
