/**
 * The contract of the write line (write-line.ts): what a planner sees and returns, the
 * interceptor and hook seams, what a write resolves with, and the line's settings. Kept apart so
 * the line's files (commit.ts, batch.ts) share it without importing the line.
 */
import type { Config } from '../../config/config.js';
import { regionPolicyOf, type RegionPolicy } from '../../config/regions.js';
import type { ChangeDecl } from '../../domain/change-log.js';
import type { GridVersion } from '../../domain/grid-version.js';
import type { Effects } from '../../domain/membership.js';
import type { Context, Span } from '@opentelemetry/api';
import type { WriteOp } from './write-op.js';
import type { StatementScope } from '../../store/statement-scope.js';
import type { GridMutation, StaticWrites } from '../../store/grid-mutation.js';
import type { EntriesQuery } from '../../domain/grid-source.js';
import type { GridEntry } from '../../domain/merge.js';
import type { GridHead, OverridesSnapshot } from '../../store/grid-store.js';

/**
 * The planner's read port for the grid's time-ordered rows (`grid_posts`) and the merged order
 * built on them: the store's and reader's calls of the same names, answered from what the
 * batch's earlier writes read (known-rows.ts) and from Cassandra where not.
 */
export interface GridRowsRead {
  hasGridRow(profileId: bigint, postId: bigint): Promise<boolean>;
  gridRowsAmong(profileId: bigint, postIds: readonly bigint[]): Promise<Set<bigint>>;
  entries(
    profileId: bigint,
    overrides: readonly GridEntry[],
    query: EntriesQuery,
  ): Promise<GridEntry[]>;
  chronologicalUp(
    profileId: bigint,
    from: bigint,
    pageSize?: number,
  ): AsyncIterable<bigint> | Iterable<bigint>;
}

export interface PlanContext {
  readonly profileId: bigint;
  /**
   * The state this write is planned on: the snapshot the compare-and-set is conditioned on, with
   * the writes planned before it in the same batch applied (commit.ts).
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
  /** Reads of `grid_posts` for this grid, shared by the writes of the batch (known-rows.ts). */
  readonly rows: GridRowsRead;
  /**
   * Hands the line work that must be done before this attempt's batch is sent (a record the
   * write's response will point at), so the writes planned after this one need not wait for it:
   * the line awaits it before the batch, and a failure fails this write alone. Absent outside
   * the line (a planner then awaits the work itself).
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
  /** The operation the write belongs to, its metrics' label (write-op.ts); absent = 'other'. */
  readonly op?: WriteOp | undefined;
  /** A re-home (home-region.ts): planned without the home region check. */
  readonly anyRegion?: boolean;
  /**
   * The statement scope of the request the write is for (its deadline, src/http/deadline.ts):
   * the batch carrying the write counts as that request's write, and is refused once its
   * deadline answered "not applied" (commit.ts). Absent: the write is no request's.
   */
  readonly scope?: StatementScope | undefined;
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
 * One conditional batch that applied (one write or several): the snapshot its compare-and-set was
 * conditioned on and what it wrote are together the new state, with no read.
 */
export interface CommitEvent {
  readonly profileId: bigint;
  readonly version: bigint;
  readonly generation: bigint;
  /** What the batch wrote (its writes' mutations merged, batch.ts). */
  readonly mutation: GridMutation;
  /** The snapshot the compare-and-set was conditioned on: with `mutation`, the new state. */
  readonly before: OverridesSnapshot;
  /** The write line turn's trace context, when traced: the parent of the hooks' own work. */
  readonly trace?: Context;
}

export interface WriterHooks {
  onCommitted?: Array<(event: CommitEvent) => Promise<void> | void>;
  /** Test seam: runs right after a successful compare-and-set, before hooks (crash injection). */
  afterCas?: (event: CommitEvent) => Promise<void> | void;
  log?: (msg: string, err?: unknown) => void;
}

/** The change stream's part in one turn of a grid (service/changes/publication.ts). */
export interface PublicationRound {
  /**
   * Before each batch is sent, awaited: the mark that lets a crash after the commit be found.
   * Resolves the newest state the stream published for the grid, when the mark read it.
   */
  beforeBatch(): Promise<GridVersion | undefined>;
  /** The batch applied (before the crash seam: from here on the mark must stay). */
  applied(): void;
  /** After the batch and its membership effects: publish its versions (not awaited). */
  publish(event: CommitEvent): void;
  /** The turn is over: takes back a mark that no applied batch needs. */
  done(): void;
}

export interface Publication {
  open(profileId: bigint): PublicationRound;
}

export interface WriterSettings {
  readonly maxAttempts: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Seconds a client should wait after a 'contention' error. */
  readonly retryAfterS: number;
  /** Longest wait for this process's earlier writes to the same grid; 0 = no queue. */
  readonly queueMaxWaitMs: number;
  /** Slots of the change log (domain/change-log.ts); at least `batch.maxWrites`. */
  readonly changeSlots?: number;
  /** Bounds of one batch (1 write = every write commits alone). */
  readonly batch: {
    readonly maxWrites: number;
    readonly maxRows: number;
    readonly maxBytes: number;
  };
  /** Home regions (src/config/regions.ts); absent = off, no check (home-region.ts). */
  readonly region?: RegionPolicy;
}

export const writerSettingsOf = (config: Config): WriterSettings => ({
  maxAttempts: config.CAS_MAX_ATTEMPTS,
  baseBackoffMs: 5,
  maxBackoffMs: 200,
  retryAfterS: 1,
  queueMaxWaitMs: config.WRITE_QUEUE_MAX_WAIT_MS,
  changeSlots: Math.max(config.CHANGE_LOG_VERSIONS, config.WRITE_GROUP_MAX_WRITES),
  batch: {
    maxWrites: config.WRITE_GROUP_MAX_WRITES,
    maxRows: config.WRITE_GROUP_MAX_ROWS,
    maxBytes: config.WRITE_GROUP_MAX_BYTES,
  },
  ...policyOf(config),
});

const policyOf = (config: Config) => {
  const region = regionPolicyOf(config);
  return region ? { region } : {};
};

/** A write waiting in its grid's queue, or being planned and committed. */
export interface QueuedWrite {
  readonly planner: GridPlanner<unknown>;
  readonly options: WriteOptions;
  /** The statement scope (request deadline) of the write (`options.scope`), if any. */
  readonly scope: StatementScope | undefined;
  /** A batch that carried this write timed out: it may have committed. */
  outcomeUnknown: boolean;
  /** Its queue-wait span while it waits, when traced (write-trace.ts). */
  queueWait?: Span | undefined;
  resolve(outcome: WriteOutcome<unknown>): void;
  reject(err: unknown): void;
}

/** What planning made of one write. */
export type PlannedWrite =
  | {
      readonly kind: 'write' | 'skip';
      readonly write: QueuedWrite;
      readonly result: unknown;
      /** The version committed (write) or planned on (skip). */
      readonly version: bigint;
      readonly generation: bigint;
      /** Only for a write: what it adds to the batch (for metrics). */
      readonly mutation?: GridMutation;
    }
  | { readonly kind: 'refused'; readonly write: QueuedWrite; readonly error: unknown };

export interface BatchPlan {
  /** Answered now, without the batch. */
  readonly now: PlannedWrite[];
  /** Answered with the batch. */
  readonly batched: PlannedWrite[];
  readonly back: QueuedWrite[];
  /** The batch: the writes' mutations merged (empty when nothing writes). */
  readonly mutation: GridMutation;
  readonly writes: number;
  /** The head the batch leaves if it applies. */
  readonly after: { readonly head: GridHead };
  /** The membership record of a write that commits alone. */
  readonly effects: Effects | undefined;
  /** Waits for the work planners handed over (`beforeCommit`); the writes whose work failed. */
  failedWork(): Promise<ReadonlyMap<QueuedWrite, unknown>>;
}
