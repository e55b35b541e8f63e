/**
 * What a grid commit tells its hooks: the snapshot its compare-and-set was conditioned on and
 * the mutation it wrote (the writer's CommitEvent, structurally). Together they are the new
 * state, with no read: nobody can have changed the partition in between.
 */
import type { GridHead, OverrideRow } from './grid-head.js';
import type { OverrideChanges } from './override-list.js';

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
   * planned the next write of its group on them).
   */
  readonly after?: readonly OverrideRow[];
}
