/**
 * What a group commit's writes answer when they do not commit (group-commit.ts): never "not
 * applied" for a write that may have landed.
 */
import { DomainError } from '../../domain/errors.js';
import type { GroupMember } from './group-round.js';
import type { WriterSettings } from './write-types.js';

/**
 * The runner reads outside every request's statement scope, so an availability failure of its
 * snapshot read comes out as "unavailable" (not applied). For a write that an earlier batch of
 * this round may have committed (that batch timed out, or its request's scope has a write that
 * may have landed), that would be false: it answers "outcome unknown" instead.
 */
export function asSeenBy(m: GroupMember, err: unknown): unknown {
  const mayHaveLanded = m.outcomeUnknown || (m.scope?.mayHaveWritten ?? false);
  if (err instanceof DomainError && err.code === 'unavailable' && mayHaveLanded) {
    return new DomainError(
      'write_outcome_unknown',
      'Cassandra failed after a batch carrying this write was sent; it may or may not have been applied',
      { retry_after_s: 1 },
      { cause: err },
    );
  }
  return err;
}

export const notSent = () =>
  new DomainError('unavailable', 'the request deadline passed before the write was sent', {
    retry_after_s: 1,
  });

export function gaveUp(settings: WriterSettings, outcomeUnknown: boolean): DomainError {
  const details = { retry_after_s: settings.retryAfterS, attempts: settings.maxAttempts };
  // A round that timed out may have committed: "contention" would claim it was not applied.
  return outcomeUnknown
    ? new DomainError(
        'write_outcome_unknown',
        'a compare-and-set timed out and later attempts lost: it may or may not have been applied',
        details,
      )
    : new DomainError(
        'contention',
        'the grid is being changed concurrently; retry shortly',
        details,
      );
}
