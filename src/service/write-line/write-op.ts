/**
 * Which grid operation is running, and its outcome metrics. GridService wraps each write
 * operation in `trackOp`; the writer reads `currentOp()` to label its CAS metrics. An async
 * context rather than a WriteOptions field because some operations write more than one grid
 * (a deleted collab post leaves every collaborator's grid) through planners that take no
 * options, and because the outcome must also count what fails before the writer runs (the move
 * rate limit, a missing If-Match).
 */
import { AsyncSlot } from '../../store/async-slot.js';
import { isDomainError } from '../../domain/errors.js';
import { gridWriteDuration, gridWrites } from '../../obs/metrics.js';

export type WriteOp =
  | 'move'
  | 'create'
  | 'delete'
  | 'pins'
  | 'archive'
  | 'unarchive'
  | 'reset'
  | 'batch_order'
  | 'undo'
  | 'accept'
  | 'decline'
  | 'remove_collaborator'
  | 'takedown'
  | 'register'
  | 'unregister'
  | 'import';

const running = new AsyncSlot<WriteOp>('write-op');

/** The operation a grid write belongs to; 'other' for writes outside GridService (seeding). */
export const currentOp = (): WriteOp | 'other' => running.getStore() ?? 'other';

/** The outcome label: ok, a domain error's code, or 'internal' for anything unexpected. */
export const outcomeOf = (err: unknown): string => (isDomainError(err) ? err.code : 'internal');

/** Runs `work` as operation `op`: counted by outcome and timed, nested writes labelled `op`. */
export async function trackOp<T>(op: WriteOp, work: () => Promise<T>): Promise<T> {
  const end = gridWriteDuration.startTimer({ op });
  try {
    const out = await running.run(op, work);
    gridWrites.inc({ op, outcome: 'ok' });
    return out;
  } catch (err) {
    gridWrites.inc({ op, outcome: outcomeOf(err) });
    throw err;
  } finally {
    end();
  }
}
