/**
 * The contract of the grid writer (grid-writer.ts): what a planner sees and returns, the
 * interceptor and hook seams, what a write resolves with, and the writer's settings. Kept apart
 * so the writer's parts (group-planner.ts, group-commit.ts) share it without importing the writer.
 */
import type { Config } from '../../config.js';
import type { ChangeDecl } from '../../domain/change-log.js';
import type { CommittedState } from '../../domain/committed-state.js';
import type { GridMutation, StaticWrites } from '../../store/grid-mutation.js';
import type { OverridesSnapshot } from '../../store/grid-store.js';

export interface PlanContext {
  readonly profileId: bigint;
  /**
   * The state this write is planned on: the snapshot the compare-and-set is conditioned on, with
   * the writes planned before this one in the same group commit applied (group-round.ts).
   */
  readonly snapshot: OverridesSnapshot;
  /** The version this write will commit if its compare-and-set wins. */
  readonly nextVersion: bigint;
  /** 1-based. */
  readonly attempt: number;
  /**
   * An earlier attempt of this write timed out (outcome unknown): it may have committed, and the
   * snapshot then shows its result (planners answer "already done" instead of "not found").
   */
  readonly outcomeUnknown: boolean;
  /**
   * Hands the writer work that must be done before this attempt's batch is sent (a record the
   * write's response will point at), so the writes planned after this one in the same group need
   * not wait for it: the writer awaits it before the batch, and a failure fails this write alone.
   * Absent outside the writer (a planner then awaits the work itself).
   */
  readonly beforeCommit?: (work: Promise<unknown>) => void;
}

export type PlanDecision<R> =
  | {
      readonly kind: 'write';
      readonly mutation: GridMutation;
      readonly result: R;
      /** What this version changed, for the change log (service/changes/planned-change.ts). */
      readonly change?: ChangeDecl;
    }
  | { readonly kind: 'skip'; readonly result: R };

/** Decides what to write from a fresh snapshot. Called again after every lost CAS. */
export type GridPlanner<R> = (ctx: PlanContext) => Promise<PlanDecision<R>>;

export interface WriteInterceptor {
  /** Sees every snapshot before the planner; may throw to stop the write (may be async). */
  onSnapshot?(snapshot: OverridesSnapshot): void | Promise<void>;
  /** Static cells to add to the batch that commits `nextVersion` with `result`. */
  extraStatics?(snapshot: OverridesSnapshot, nextVersion: bigint, result: unknown): StaticWrites;
}

export interface WriteOptions {
  readonly interceptor?: WriteInterceptor;
}

export interface WriteOutcome<R> {
  readonly result: R;
  /** The version of this write: the one it committed, or the one it was planned on if skipped. */
  readonly version: bigint;
  readonly generation: bigint;
  readonly committed: boolean;
  readonly attempts: number;
}

/**
 * One conditional batch that applied: one write, or a group commit of several. The committed
 * state the caches are refilled from (domain/committed-state.ts), with the store's own types.
 */
export interface CommitEvent extends CommittedState {
  /** What the batch wrote (a group's mutations merged, group-plan.ts). */
  readonly mutation: GridMutation;
  /** The snapshot the compare-and-set was conditioned on: with `mutation`, the new state. */
  readonly before: OverridesSnapshot;
}

export interface WriterHooks {
  onCommitted?: Array<(event: CommitEvent) => Promise<void> | void>;
  /** Test seam: runs right after a successful compare-and-set, before hooks (crash injection). */
  afterCas?: (event: CommitEvent) => Promise<void> | void;
  log?: (msg: string, err?: unknown) => void;
}

/** The change stream's part in one write round (service/changes/publication.ts). */
export interface PublicationRound {
  /** Before each batch is sent, awaited: the mark that lets a crash after the commit be found. */
  beforeBatch(): Promise<void>;
  /** The batch applied (before the crash seam: from here on the mark must stay). */
  applied(): void;
  /** After the batch and its membership effects: publish its versions (not awaited). */
  publish(event: CommitEvent): void;
  /** The round is over: takes back a mark that no applied batch needs. */
  done(): void;
}

export interface Publication {
  open(profileId: bigint): PublicationRound;
}

/** Keeping a profile's committed state across an idle write line (carried-states.ts). */
export interface CarrySettings {
  /** How long a profile's state stays carried after its line went idle; 0 = not at all. */
  readonly idleMs: number;
  /** Bound on carried rows over all profiles. */
  readonly maxRows: number;
  /** How long a profile whose carried state was stale starts from a read after idle. */
  readonly sharedForMs: number;
  /** How long a line may keep answering planners from one memo of grid_posts reads. */
  readonly memoMaxAgeMs: number;
}

export interface WriterSettings {
  readonly maxAttempts: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Seconds a client should wait after a 'contention' error. */
  readonly retryAfterS: number;
  /** Longest wait for this process's earlier writes to the same profile; 0 = no queue. */
  readonly queueMaxWaitMs: number;
  /** Keeping a profile's committed state across an idle line (carried-states.ts). */
  readonly carry: CarrySettings;
  /** Slots of the change log (domain/change-log.ts); at least `group.maxWrites`. */
  readonly changeSlots?: number;
  /** Bounds of one group commit (1 write = no grouping). */
  readonly group: {
    readonly maxWrites: number;
    readonly maxRows: number;
    readonly maxBytes: number;
  };
}

export const writerSettingsOf = (config: Config): WriterSettings => ({
  maxAttempts: config.CAS_MAX_ATTEMPTS,
  baseBackoffMs: 5,
  maxBackoffMs: 200,
  retryAfterS: 1,
  queueMaxWaitMs: config.WRITE_QUEUE_MAX_WAIT_MS,
  changeSlots: Math.max(config.CHANGE_LOG_VERSIONS, config.WRITE_GROUP_MAX_WRITES),
  carry: {
    idleMs: config.WRITE_CARRY_IDLE_MS,
    maxRows: config.WRITE_CARRY_MAX_ROWS,
    sharedForMs: 30_000,
    memoMaxAgeMs: config.WRITE_CARRY_MEMO_MS,
  },
  group: {
    maxWrites: config.WRITE_GROUP_MAX_WRITES,
    maxRows: config.WRITE_GROUP_MAX_ROWS,
    maxBytes: config.WRITE_GROUP_MAX_BYTES,
  },
});
