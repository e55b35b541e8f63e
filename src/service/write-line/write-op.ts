/**
 * The grid operations and their outcome metrics. GridService wraps each write operation in
 * `trackOp`, which also counts what fails before the writer runs (the move rate limit, a missing
 * If-Match); the operation hands its name to each of its writes (`WriteOptions.op`, also the
 * writes to other grids: a deleted collab post leaves every collaborator's grid), and the writer
 * labels its CAS metrics with it (`opOf`).
 */
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

/** The operation a grid write belongs to; 'other' for writes outside GridService (seeding). */
export const opOf = (w: { readonly options: { readonly op?: WriteOp | undefined } }) =>
  w.options.op ?? 'other';

/** The outcome label: ok, a domain error's code, or 'internal' for anything unexpected. */
export const outcomeOf = (err: unknown): string => (isDomainError(err) ? err.code : 'internal');

/** Runs `work` as operation `op`: counted by outcome and timed (its writes carry `op` themselves). */
export async function trackOp<T>(op: WriteOp, work: () => Promise<T>): Promise<T> {
  const end = gridWriteDuration.startTimer({ op });
  try {
    const out = await work();
    gridWrites.inc({ op, outcome: 'ok' });
    return out;
  } catch (err) {
    gridWrites.inc({ op, outcome: outcomeOf(err) });
    throw err;
  } finally {
    end();
  }
}
