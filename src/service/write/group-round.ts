/**
 * One round of a group commit: the group's writes planned one after another on ONE snapshot.
 * Write i is planned on the virtual snapshot S_i (the snapshot read, with the writes planned
 * before it applied, group-plan.ts) at version v + i, and commits v + i + 1 if the batch applies.
 * Its interceptor (the idempotency ring) sees S_i too, so the ring composes across the group.
 *
 * What each write comes to:
 *   - decided: a refusal (the planner or interceptor threw) or a skip with no write of the group
 *     before it saw exactly the state read, so it is answered at once, as a write alone would be;
 *   - batched: a write of the batch, or a refusal or skip planned behind one (it saw a state that
 *     exists only if the batch applies): answered with the batch, re-planned if it is lost;
 *   - cut: not in this round. A write that must commit alone (group-plan.ts `commitsAlone`) ends
 *     the group before it unless it is the first write, and then the group ends after it; a write
 *     over the group's bounds ends it too. Cut writes go back to the front of the queue and are
 *     planned again in the next round (planners are pure functions of what they read).
 */
import type { ChangeRecord } from '../../domain/change-log.js';
import type { Effects } from '../../domain/membership.js';
import type { GridMutation } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { StatementScope } from '../../store/cql-budget.js';
import { storeDidNotAnswer } from '../../store/cql-errors.js';
import { gridPostsMemo, type GridPostsMemo } from '../../store/grid-posts-memo.js';
import { GroupTally, mergeMutations, snapshotAfter, type GroupBounds } from './group-plan.js';
import { membershipStatics } from './membership-statics.js';
import { DEFAULT_CHANGE_SLOTS, withChange } from '../changes/planned-change.js';
import type { GridPlanner, WriteOptions, WriteOutcome } from './write-types.js';

/** A queued write, as the group runner holds it. */
export interface GroupMember {
  readonly planner: GridPlanner<unknown>;
  readonly options: WriteOptions;
  /** The statement scope (request deadline) the write was submitted under, if any. */
  readonly scope: StatementScope | undefined;
  /** Runs `f` in the async context the write was submitted from (its operation, its scope). */
  run<T>(f: () => Promise<T>): Promise<T>;
  /** A batch that carried this write timed out: it may have committed. */
  outcomeUnknown: boolean;
  resolve(outcome: WriteOutcome<unknown>): void;
  reject(err: unknown): void;
}

export type Planned =
  | {
      readonly kind: 'write' | 'skip';
      readonly member: GroupMember;
      readonly result: unknown;
      /** The version committed (write) or planned on (skip). */
      readonly version: bigint;
      readonly generation: bigint;
      /** Only for a write: what it adds to the batch (for metrics). */
      readonly mutation?: GridMutation;
    }
  | { readonly kind: 'refused'; readonly member: GroupMember; readonly error: unknown };

export interface RoundPlan {
  readonly decided: Planned[];
  readonly batched: Planned[];
  readonly cut: GroupMember[];
  /** The batch: the writes' mutations merged (empty when nothing writes). */
  readonly mutation: GridMutation;
  readonly writes: number;
  /** The state the batch leaves if it applies (the last write's virtual snapshot). */
  readonly after: OverridesSnapshot;
  /** The membership record of a write that commits alone. */
  readonly effects: Effects | undefined;
  /**
   * Waits for the work planners handed over (`beforeCommit`); the writes whose work failed. Sync
   * (the empty map) when none was handed over.
   */
  failedWork(): ReadonlyMap<GroupMember, unknown> | Promise<ReadonlyMap<GroupMember, unknown>>;
}

export async function planRound(
  store: Pick<GridStore, 'countGridRows'>,
  profileId: bigint,
  read: OverridesSnapshot,
  members: readonly GroupMember[],
  attempt: number,
  bounds: GroupBounds,
  memo: GridPostsMemo,
  changeSlots = DEFAULT_CHANGE_SLOTS,
): Promise<RoundPlan> {
  const decided: Planned[] = [];
  const batched: Planned[] = [];
  const mutations: GridMutation[] = [];
  const tally = new GroupTally(bounds);
  let cut: GroupMember[] = [];
  let effects: Effects | undefined;
  const work: Array<Promise<[GroupMember, unknown] | undefined>> = [];
  const changes: ChangeRecord[] = [];
  let s = read;
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    const writes = tally.writes;
    const nextVersion = s.head.version + 1n;
    const into = writes === 0 ? decided : batched;
    const snapshot = s;
    let planned;
    try {
      planned = await member.run(async () => {
        const { interceptor } = member.options;
        await interceptor?.onSnapshot?.(snapshot);
        const beforeCommit = (w: Promise<unknown>) =>
          void work.push(w.then(noFailure, (e: unknown) => [member, e]));
        const ctx = {
          profileId,
          snapshot,
          nextVersion,
          attempt,
          outcomeUnknown: member.outcomeUnknown,
          beforeCommit,
        };
        const decision = await gridPostsMemo.run(memo, () => member.planner(ctx));
        if (decision.kind === 'skip') return { decision, mutation: undefined };
        const extra = interceptor?.extraStatics?.(snapshot, nextVersion, decision.result);
        const statics = { ...decision.mutation.statics, ...extra };
        return { decision, mutation: { ...decision.mutation, statics } as GridMutation };
      });
    } catch (error) {
      // The store did not answer a planner's read: every later write of the round would wait
      // for its own reads and then the batch, one timeout after another. The round fails at
      // once instead, each of its writes with this error (commitGroup), as a write alone would.
      if (storeDidNotAnswer(error)) throw error;
      into.push({ kind: 'refused', member, error });
      continue;
    }
    const { decision } = planned;
    const { generation } = snapshot.head;
    if (!planned.mutation) {
      into.push({
        kind: 'skip',
        member,
        result: decision.result,
        version: s.head.version,
        generation,
      });
      continue;
    }
    let mutation = planned.mutation;
    if (!tally.fits(mutation)) {
      cut = members.slice(i);
      break;
    }
    if ((mutation.effects?.length ?? 0) > 0) {
      // A membership write (first of its group, so alone): its record and post count.
      const m = await membershipStatics(store, profileId, snapshot, mutation, nextVersion);
      effects = m.effects;
      mutation = { ...mutation, statics: { ...mutation.statics, ...m.statics } };
    }
    const at = { version: nextVersion, generation, slots: changeSlots, at: Date.now() };
    const change = decision.kind === 'write' ? decision.change : undefined;
    mutation = withChange(mutation, change, changes, at);
    tally.add(mutation);
    mutations.push(mutation);
    batched.push({
      kind: 'write',
      member,
      result: decision.result,
      version: nextVersion,
      generation,
      mutation,
    });
    s = snapshotAfter(s, mutation, nextVersion);
    if (tally.full) {
      // A write that commits alone (or the last the bounds allow): the group ends after it.
      cut = members.slice(i + 1);
      break;
    }
  }
  return {
    decided,
    batched,
    cut,
    mutation: mutations.length > 0 ? mergeMutations(mutations) : {},
    writes: tally.writes,
    after: s,
    effects,
    failedWork: () =>
      work.length === 0
        ? NO_FAILURES
        : Promise.all(work).then((all) => new Map(all.filter((f) => f !== undefined))),
  };
}

const noFailure = (): undefined => undefined;
/** What `failedWork` answers when no planner handed work over (no promise round for it). */
const NO_FAILURES: ReadonlyMap<GroupMember, unknown> = new Map();
