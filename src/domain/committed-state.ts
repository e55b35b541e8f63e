/**
 * What a grid commit tells the caches: the snapshot its compare-and-set was conditioned on and
 * the mutation it wrote (the writer's CommitEvent, structurally). Together they are the new
 * state, with no read: nobody can have changed the partition in between.
 */
import type { GridHead, OverrideRow } from './grid-head.js';
import { overridesAfter, type OverrideChanges } from './override-list.js';

export interface CommittedState {
  readonly profileId: bigint;
  readonly version: bigint;
  readonly generation: bigint;
  readonly mutation: OverrideChanges & {
    readonly statics?: {
      readonly pins?: readonly bigint[];
      readonly postCount?: bigint;
      readonly generation?: bigint;
    };
    readonly effects?: readonly unknown[];
  };
  readonly before: { readonly head: GridHead; readonly overrides: readonly OverrideRow[] };
  /**
   * The override rows after the commit, in display order, when the writer has them already (it
   * planned the next write of its group on them); absent, `overridesOf` computes them.
   */
  readonly after?: readonly OverrideRow[];
}

/** The head of the committed state (statics the write left alone keep their snapshot value). */
export function headAfter(e: CommittedState): GridHead {
  const s = e.mutation.statics ?? {};
  return {
    version: e.version,
    generation: s.generation ?? e.generation,
    pins: s.pins ?? e.before.head.pins,
    postCount: s.postCount ?? e.before.head.postCount,
  };
}

const computed = new WeakMap<CommittedState, readonly OverrideRow[]>();

/** The override rows of the committed state, in display order (computed once per commit). */
export function overridesOf(e: CommittedState): readonly OverrideRow[] {
  if (e.after) return e.after;
  let rows = computed.get(e);
  if (!rows) computed.set(e, (rows = overridesAfter(e.before.overrides, e.mutation)));
  return rows;
}
