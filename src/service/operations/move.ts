/**
 * The move, whole: "put P right after A" (A = the post that should come just before P in display
 * order; null = the top, right after the pins). Design §5.1: naming the neighbour keeps the intent
 * when other devices move posts concurrently; applying it twice gives the same order.
 *
 * In order: the `writes.reorder` switch, the request check, the move rate limit (429 +
 * Retry-After over it; fails open without Redis), then one writeGrid whose planner
 * (move-plan.ts) places the post and records how to undo it in the same batch. Every move can be
 * undone; its `move_id` is the caller's (the HTTP layer derives it from the request, so an
 * idempotent replay hands out the same one) or a fresh UUID.
 */
import { randomUUID } from 'node:crypto';
import type { MoveRateLimiter } from '../../cache/rate-limit.js';
import { DomainError } from '../../domain/errors.js';
import type { Flags } from '../flags.js';
import type { GridWriter, WriteOptions } from '../write-line/write-line.js';
import { trackOp } from '../write-line/write-op.js';
import { movePlanner, relabelStepPlanner, type MovePlanPorts } from './move-plan.js';

/** Bound on the capped relabel steps of one move (a whole-grid relabel of 10^5 rows is 391). */
const MAX_RELABEL_STEPS = 1024;

export interface MovePorts extends MovePlanPorts {
  readonly writer: Pick<GridWriter, 'writeGrid'>;
  readonly flags: Pick<Flags, 'require'>;
  readonly moveRate?: Pick<MoveRateLimiter, 'consume'> | undefined;
}

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

export function movePost(
  ports: MovePorts,
  profileId: bigint,
  postId: bigint,
  after: bigint | null,
  options: MoveOptions = {},
): Promise<MoveOutcome> {
  return trackOp('move', async () => {
    await ports.flags.require('writes.reorder');
    if (after !== null && after === postId) {
      throw new DomainError('invalid_request', '`after` must differ from `post_id`', {
        field: 'after',
      });
    }
    await ports.moveRate?.consume(profileId);
    const moveId = options.moveId ?? randomUUID();
    const planner = movePlanner(ports, postId, after, moveId);
    let out = await ports.writer.writeGrid(profileId, planner, options);
    // A relabel larger than MOVE_ROW_CAP is paid off first, one capped step per compare-and-set,
    // each without the request's idempotency ticket (only the move's own write carries it).
    for (let steps = 0; out.result.stepFirst; steps++) {
      if (steps >= MAX_RELABEL_STEPS) {
        throw new DomainError('contention', 'the relabel this move needs did not settle', {
          retry_after_s: 1,
        });
      }
      await ports.writer.writeGrid(profileId, relabelStepPlanner(ports, postId, after));
      out = await ports.writer.writeGrid(profileId, planner, options);
    }
    const { version, generation } = out;
    return { version, generation, relabelled: out.result.relabelled, moveId };
  });
}
