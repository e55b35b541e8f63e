/**
 * How the write line answers each write (commit.ts) and what it reports: the outcome a write
 * resolves with, the errors it rejects with (never "not applied" for a write that may have
 * landed), and the metrics per write: CAS attempts, lost and unknown batches, rows written and
 * relabels, labelled by the running operation (write-op.ts), never by profile.
 */
import { DomainError } from '../../domain/errors.js';
import {
  casAttempts,
  casLost,
  casOutcomeUnknown,
  groupWrites,
  relabelRows,
  relabels,
  rowsWritten,
} from '../../obs/metrics.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { PlannedWrite, QueuedWrite, WriterSettings } from './types.js';
import { opOf } from './write-op.js';

/** Answers a planned write after `attempts` attempts; `applied`: its batch committed. */
export function answer(p: PlannedWrite, attempts: number, applied: boolean): void {
  const { write } = p;
  if (p.kind === 'refused') {
    write.reject(p.error); // as a write alone: a refusal is no attempt
    return;
  }
  casAttempts.observe({ op: opOf(write) }, attempts);
  if (p.kind === 'write' && applied && p.mutation) recordRows(p.mutation, opOf(write));
  write.resolve({
    result: p.result,
    version: p.version,
    generation: p.generation,
    committed: p.kind === 'write',
    attempts,
  });
}

/** After CAS_MAX_ATTEMPTS lost or timed-out batches. */
export function giveUp(w: QueuedWrite, settings: WriterSettings): void {
  casAttempts.observe({ op: opOf(w) }, settings.maxAttempts);
  const details = { retry_after_s: settings.retryAfterS, attempts: settings.maxAttempts };
  // A batch that timed out may have committed: "contention" would claim it was not applied.
  w.reject(
    w.outcomeUnknown
      ? new DomainError(
          'write_outcome_unknown',
          'a compare-and-set timed out and later attempts lost: it may or may not have been applied',
          details,
        )
      : new DomainError(
          'contention',
          'the grid is being changed concurrently; retry shortly',
          details,
        ),
  );
}

/**
 * The line reads outside every request's statement scope, so an availability failure of its
 * snapshot read comes out as "unavailable" (not applied). For a write that an earlier batch may
 * have committed (that batch timed out, or its request's scope has a write that may have landed)
 * that would be false: it answers "outcome unknown" instead.
 */
export function asSeenBy(w: QueuedWrite, err: unknown): unknown {
  const mayHaveLanded = w.outcomeUnknown || (w.scope?.mayHaveWritten ?? false);
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

/** A request whose deadline answered "not applied" while its write waited for the batch. */
export const notSent = () =>
  new DomainError('unavailable', 'the request deadline passed before the write was sent', {
    retry_after_s: 1,
  });

/** A conditional batch applied, committing `writes` grid writes. */
export function recordBatch(writes: number): void {
  groupWrites.observe(writes);
}

/**
 * A conditional batch did not apply: lost to another writer, or its Paxos round timed out.
 * Labelled with the operation of its first write.
 */
export function recordCasMiss(reason: 'timeout' | 'version_changed', first: QueuedWrite): void {
  (reason === 'timeout' ? casOutcomeUnknown : casLost).inc({ op: opOf(first) });
}

/**
 * A committed mutation's rows. An upsert without `movedVersion` is a relabel: the post's key
 * changed although nobody moved it (grid-mutation.ts), which is what a relabel burst shows.
 */
function recordRows(mutation: GridMutation, op: string): void {
  const upserts = mutation.upserts ?? [];
  rowsWritten.observe({ op }, upserts.length + (mutation.deleteRows?.length ?? 0));
  const relabelled = upserts.filter((u) => u.movedVersion === undefined).length;
  if (relabelled > 0) {
    relabels.inc({ op });
    relabelRows.observe(relabelled);
  }
}

/** Full jitter: uniform in [0, min(max, base · 2^attempt)). */
export function backoff(settings: WriterSettings, attempt: number): Promise<void> {
  const cap = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** attempt);
  return new Promise<void>((r) => setTimeout(r, Math.random() * cap));
}

/** Rejects the waiting writes `why` names an error for; true if there were any. */
export function drop(turn: { waiting: QueuedWrite[] }, why: (w: QueuedWrite) => unknown): boolean {
  const gone = turn.waiting.filter((w) => why(w) !== undefined);
  if (gone.length === 0) return false;
  turn.waiting = turn.waiting.filter((w) => !gone.includes(w));
  for (const w of gone) w.reject(why(w));
  return true;
}
