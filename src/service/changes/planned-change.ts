/**
 * A planned write's change record (domain/change-log.ts), added to its mutation by the group
 * round (service/write/group-round.ts) so it commits in the same conditional batch as the
 * version it describes. The planner declares what it changed (`PlanDecision.change`); a planner
 * that declares nothing gets kind `changed` and the posts its mutation names as changed: those
 * its membership effects touch and those it gave a new moved_version (never a relabelled row).
 */
import { distinctPosts, type ChangeDecl, type ChangeRecord } from '../../domain/change-log.js';
import type { GridMutation } from '../../store/grid-mutation.js';

/** Slots of the change log when the writer's settings name none (CHANGE_LOG_VERSIONS). */
export const DEFAULT_CHANGE_SLOTS = 64;

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
export function withChange(
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
