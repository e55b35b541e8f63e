/**
 * A planned write's change record (domain/change-log.ts), added to its mutation as the write
 * line plans a batch (service/write-line/commit.ts `planBatch`) so it commits in the same conditional batch as the
 * version it describes. The planner declares what it changed (`PlanDecision.change`); a planner
 * that declares nothing gets kind `changed` and the posts its mutation names as changed: those
 * its membership effects touch and those it gave a new moved_version (never a relabelled row).
 */
import { distinctPosts, type ChangeDecl, type ChangeRecord } from '../../domain/change-log.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { PlanDecision } from '../write-line/types.js';

/** Slots of the change log when the writer's settings name none (CHANGE_LOG_VERSIONS). */
const DEFAULT_CHANGE_SLOTS = 64;

export interface ChangeAt {
  readonly version: bigint;
  readonly generation: bigint;
  readonly slots: number;
  readonly at: number;
}

/** The posts a mutation changes for a planner that declared nothing. */
export function derivedPosts(m: GridMutation, version: bigint): bigint[] {
  return distinctPosts([
    ...(m.effects ?? []).map((e) => e.postId),
    ...(m.upserts ?? []).filter((u) => u.movedVersion === version).map((u) => u.postId),
  ]);
}

/**
 * `mutation` with the round's change records so far plus this write's (appended to `round`,
 * the round's list: a group's merged statics keep the last write's list, so the batch gets all).
 */
function withChange(
  mutation: GridMutation,
  change: ChangeDecl | undefined,
  round: ChangeRecord[],
  at: ChangeAt,
): GridMutation {
  round.push({
    version: at.version,
    generation: at.generation,
    at: at.at,
    kind: change?.kind ?? 'changed',
    postIds: change ? distinctPosts(change.postIds) : derivedPosts(mutation, at.version),
  });
  const changeLog = { records: [...round], slots: at.slots };
  return { ...mutation, statics: { ...mutation.statics, changeLog } };
}

/**
 * One batch's change records, as its writes are planned: each call adds the record of the write
 * that commits `version` (what its decision declares, else derived from its mutation).
 */
export function changeRound(slots = DEFAULT_CHANGE_SLOTS) {
  const records: ChangeRecord[] = [];
  return (
    mutation: GridMutation,
    decision: PlanDecision<unknown>,
    version: bigint,
    generation: bigint,
  ): GridMutation => {
    const change = decision.kind === 'write' ? decision.change : undefined;
    return withChange(mutation, change, records, { version, generation, slots, at: Date.now() });
  };
}
