/**
 * The move operation, whole: rate limit, then one write through the writer whose planner places
 * the post (move.ts) and, before each attempt's compare-and-set, records how to undo it
 * (undo.ts). Every move can be undone; its `move_id` is the caller's (the HTTP layer derives it
 * from the request, so an idempotent replay hands out the same one) or a fresh UUID.
 */
import { randomUUID } from 'node:crypto';
import type { MoveRateLimiter } from '../../cache/rate-limit.js';
import type { ServiceDeps } from '../deps.js';
import type { WriteOptions } from '../write-line/write-line.js';
import { DomainError } from '../../domain/errors.js';
import { assertMoveRequest, movePlanner, relabelStepPlanner } from './move-planner.js';
import { undoRecorder } from './undo.js';

/** Bound on the capped relabel steps of one move (a whole-grid relabel of 10^5 rows is 391). */
const MAX_RELABEL_STEPS = 1024;

export interface MoveOptions extends WriteOptions {
  /** The id the undo record is kept under (default: a fresh UUID). */
  readonly moveId?: string | undefined;
}

export interface MoveOutcome {
  readonly version: bigint;
  readonly generation: bigint;
  /** Rows rewritten besides the moved post (relabels). */
  readonly relabelled: number;
  readonly moveId: string;
}

export async function movePost(
  deps: ServiceDeps & { readonly moveRate?: Pick<MoveRateLimiter, 'consume'> | undefined },
  profileId: bigint,
  postId: bigint,
  after: bigint | null,
  options: MoveOptions = {},
): Promise<MoveOutcome> {
  assertMoveRequest(postId, after);
  // Over the limit → DomainError('rate_limited') (429 + Retry-After); fails open without Redis.
  await deps.moveRate?.consume(profileId);
  const moveId = options.moveId ?? randomUUID();
  const planner = movePlanner(deps, postId, after, undoRecorder(deps, postId, moveId));
  let out = await deps.writer.writeGrid(profileId, planner, options);
  // A relabel larger than MOVE_ROW_CAP is paid off first, one capped step per compare-and-set,
  // each without the request's idempotency ticket (only the move's own write carries it).
  for (let steps = 0; out.result.stepFirst; steps++) {
    if (steps >= MAX_RELABEL_STEPS) {
      throw new DomainError('contention', 'the relabel this move needs did not settle', {
        retry_after_s: 1,
      });
    }
    await deps.writer.writeGrid(profileId, relabelStepPlanner(deps, postId, after));
    out = await deps.writer.writeGrid(profileId, planner, options);
  }
  return {
    version: out.version,
    generation: out.generation,
    relabelled: out.result.relabelled,
    moveId,
  };
}
