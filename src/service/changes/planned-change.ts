/**
 * A planned write's change record (domain/change-log.ts), added to its mutation as the write
 * line plans a write (service/write-line/commit.ts `planWrite`) so it commits in the same
 * conditional batch as the version it describes. The planner declares what it changed (`PlanDecision.change`); a planner
 * that declares nothing gets kind `changed` and the posts its mutation names as changed: those
 * its membership effects touch and those it gave a new moved_version (never a relabelled row).
 */
import { distinctPosts, type ChangeRecord } from '../../domain/change-log.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { PlanDecision } from '../write-line/types.js';

/** Slots of the change log when the writer's settings name none (CHANGE_LOG_VERSIONS). */
const DEFAULT_CHANGE_SLOTS = 64;

/** The posts a mutation changes for a planner that declared nothing. */
export function derivedPosts(m: GridMutation, version: bigint): bigint[] {
  return distinctPosts([
    ...(m.effects ?? []).map((e) => e.postId),
    ...(m.upserts ?? []).filter((u) => u.movedVersion === version).map((u) => u.postId),
  ]);
}

/**
 * `mutation` with the change record of the write that commits `version` (what its decision
 * declares, else derived from its mutation).
 */
export function withChange(
  mutation: GridMutation,
  decision: PlanDecision<unknown>,
  version: bigint,
  generation: bigint,
  slots = DEFAULT_CHANGE_SLOTS,
): GridMutation {
  const change = decision.kind === 'write' ? decision.change : undefined;
  const record: ChangeRecord = {
    version,
    generation,
    at: Date.now(),
    kind: change?.kind ?? 'changed',
    postIds: change ? distinctPosts(change.postIds) : derivedPosts(mutation, version),
  };
  const changeLog = { records: [record], slots };
  return { ...mutation, statics: { ...mutation.statics, changeLog } };
}
