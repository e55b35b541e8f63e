/**
 * The ticket an idempotent write carries into its grid's compare-and-set (docs/idempotency.md):
 * it checks the grid's request ring on every snapshot (replay / another request / cannot tell)
 * and adds this request to the ring value the committing batch writes. Plus the errors that flow
 * through that path.
 */
import { DomainError } from '../../domain/errors.js';
import { checkRing, pushToRing, type RingEntry } from '../../domain/request-ring.js';
import { decodeCommitted, encodeCommitted, type CommittedOutcome } from './idempotency-request.js';

/** Thrown by a grid write that finds its own key already committed in the ring. */
export class IdempotentReplay extends Error {
  constructor(readonly outcome: CommittedOutcome) {
    super('request already committed');
    this.name = 'IdempotentReplay';
  }
}

/**
 * Test-only: stands for the process dying at that point. `run()` does no cleanup for it (no
 * release, no record), exactly as a crash would leave things.
 */
export class SimulatedCrash extends Error {
  constructor(where: string) {
    super(`simulated crash: ${where}`);
    this.name = 'SimulatedCrash';
  }
}

/** Handed to the write: ties the idempotency key to the grid's compare-and-set. */
export interface IdempotencyTicket {
  readonly keyHash: string;
  readonly fingerprint: string;
  readonly claimedAt: bigint;
  /** Throws IdempotentReplay (already committed), 422 (other request) or 409 (cannot tell). */
  check(ring: readonly RingEntry[]): void;
  /** The ring value to write in the same batch that commits `outcome`. */
  nextRing(ring: readonly RingEntry[], outcome: CommittedOutcome): RingEntry[];
}

export function makeTicket(
  keyHash: string,
  fingerprint: string,
  claimedAt: bigint,
  now: () => number,
  maxAgeMs: number,
): IdempotencyTicket {
  return {
    keyHash,
    fingerprint,
    claimedAt,
    check(ring) {
      const verdict = checkRing(ring, keyHash, fingerprint, claimedAt);
      if (verdict.kind === 'replay')
        throw new IdempotentReplay(decodeCommitted(verdict.entry.outcome));
      if (verdict.kind === 'mismatch') throw mismatch();
      if (verdict.kind === 'unknown') throw outcomeUnknown();
    },
    nextRing(ring, outcome) {
      const at = now();
      return pushToRing(
        ring,
        { keyHash, fingerprint, version: outcome.version, at, outcome: encodeCommitted(outcome) },
        { now: at, maxAgeMs },
      );
    },
  };
}

export const mismatch = (): DomainError =>
  new DomainError(
    'idempotency_mismatch',
    'this Idempotency-Key was used for a different request',
    {},
  );

export const outcomeUnknown = (): DomainError =>
  new DomainError(
    'idempotency_in_flight',
    'the earlier attempt with this Idempotency-Key may have been applied; reload and use a new key',
    { outcome: 'unknown' },
  );

/**
 * Until the key's state is known (its ring read, its claim), an earlier attempt with this key may
 * have committed, so a store that cannot answer does not mean "not applied" for the key: the
 * caller hears `write_outcome_unknown` and retries with the same key, which is always safe.
 */
export async function keyUnknownIfUnavailable<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'unavailable') {
      throw new DomainError(
        'write_outcome_unknown',
        'Cassandra could not say whether an earlier attempt with this Idempotency-Key was applied; retry with the same key',
        { retry_after_s: 1 },
        { cause: err },
      );
    }
    throw err;
  }
}
