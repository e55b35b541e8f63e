/**
 * What the grid writer reports per write: CAS attempts, lost and unknown rounds, rows written
 * and relabels. Labelled by the running operation (write-op.ts), never by profile.
 */
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
import { currentOp } from './write-op.js';

/** A write ended (committed, skipped, or gave up) after `attempts` attempts. */
export function recordAttempts(attempts: number): void {
  casAttempts.observe({ op: currentOp() }, attempts);
}

/** A conditional batch applied, committing `writes` grid writes (a group commit when > 1). */
export function recordGroup(writes: number): void {
  groupWrites.observe(writes);
}

/** A conditional batch did not apply: lost to another writer, or its Paxos round timed out. */
export function recordCasMiss(reason: 'timeout' | 'version_changed'): void {
  (reason === 'timeout' ? casOutcomeUnknown : casLost).inc({ op: currentOp() });
}

/**
 * A committed mutation's rows. An upsert without `movedVersion` is a relabel: the post's key
 * changed although nobody moved it (grid-mutation.ts), which is what a relabel burst shows.
 */
export function recordCommit(mutation: GridMutation): void {
  const op = currentOp();
  const upserts = mutation.upserts ?? [];
  rowsWritten.observe({ op }, upserts.length + (mutation.deleteRows?.length ?? 0));
  const relabelled = upserts.filter((u) => u.movedVersion === undefined).length;
  if (relabelled > 0) {
    relabels.inc({ op });
    relabelRows.observe(relabelled);
  }
}
