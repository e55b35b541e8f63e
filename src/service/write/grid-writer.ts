/**
 * The single version-bump path: every change to a grid (moves, new posts, deletes, and later
 * pins, archive, reset, batch order, collaborators, takedown) goes through `writeGrid`.
 *
 * One attempt = read the override partition (head + all overrides; only the head when this
 * process committed the current state last, store/snapshot-memo.ts), let the planner
 * decide from that snapshot, and commit its mutation with ONE conditional batch that also bumps
 * the version (`IF version = <read>`). A lost compare-and-set means someone else committed in
 * between: re-read and re-plan (the planner must be a pure function of what it reads), up to
 * CAS_MAX_ATTEMPTS with jittered exponential backoff, then DomainError('contention') (HTTP 503
 * with Retry-After). A Paxos timeout leaves the outcome unknown; it is handled like a lost CAS:
 * the re-read shows the truth and the planner decides again (moves are anchor-based, so applying
 * "put P after A" on top of itself is harmless; it only costs one extra version).
 *
 * Membership (domain/membership.ts): a planner that changes which posts the grid holds returns
 * side-table `effects`; they are recorded in the same batch (with a timestamp above the previous
 * record's) and applied right after the commit. Before planning, a snapshot whose record is not
 * yet marked applied is rolled forward first, so the planner's reads of grid rows, archive records
 * and invitations show exactly the snapshot's version.
 *
 * Extension points:
 * - planners (see move.ts, posts-service.ts) return the mutation plus the result to hand back;
 *   returning `skip` ends the write without a bump (e.g. an idempotent replay, a no-op);
 * - `WriteOptions.interceptor` sees every snapshot (may throw to stop, e.g. an idempotency replay)
 *   and may add static cells to the same batch (e.g. the idempotency request ring);
 * - `hooks.onCommitted` runs after each successful commit (cache refill / invalidation); its
 *   failures are logged, never surfaced: the write has already happened.
 */
import type { Config } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import type { Effects } from '../../domain/membership.js';
import type { GridMutation, StaticWrites } from '../../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../../store/grid-store.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { membershipStatics } from './membership-statics.js';
import { ProfileQueue } from './profile-queue.js';
import { recordAttempts, recordCasMiss, recordCommit } from './write-metrics.js';

export interface PlanContext {
  readonly profileId: bigint;
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
}

export type PlanDecision<R> =
  | { readonly kind: 'write'; readonly mutation: GridMutation; readonly result: R }
  | { readonly kind: 'skip'; readonly result: R };

/** Decides what to write from a fresh snapshot. Called again after every lost CAS. */
export type GridPlanner<R> = (ctx: PlanContext) => Promise<PlanDecision<R>>;

export interface WriteInterceptor {
  /** Sees every snapshot before the planner; may throw to abandon the write (may be async). */
  onSnapshot?(snapshot: OverridesSnapshot): void | Promise<void>;
  /** Static cells to add to the batch that commits `nextVersion` with `result`. */
  extraStatics?(snapshot: OverridesSnapshot, nextVersion: bigint, result: unknown): StaticWrites;
}

export interface WriteOptions {
  readonly interceptor?: WriteInterceptor;
}

export interface WriteOutcome<R> {
  readonly result: R;
  /** The version now current: the one committed, or the one read when skipped. */
  readonly version: bigint;
  readonly generation: bigint;
  readonly committed: boolean;
  readonly attempts: number;
}

export interface CommitEvent {
  readonly profileId: bigint;
  readonly version: bigint;
  readonly generation: bigint;
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

export interface WriterSettings {
  readonly maxAttempts: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Seconds a client should wait after a 'contention' error. */
  readonly retryAfterS: number;
  /** Longest wait for this process's earlier writes to the same profile; 0 = no queue. */
  readonly queueMaxWaitMs: number;
}

export const writerSettingsOf = (config: Config): WriterSettings => ({
  maxAttempts: config.CAS_MAX_ATTEMPTS,
  baseBackoffMs: 5,
  maxBackoffMs: 200,
  retryAfterS: 1,
  queueMaxWaitMs: config.WRITE_QUEUE_MAX_WAIT_MS,
});

export class GridWriter {
  private readonly queue: ProfileQueue | undefined;
  /** The service's own post-commit steps (the cache), after the caller's `hooks.onCommitted`. */
  private readonly ownHooks: Array<(event: CommitEvent) => Promise<void> | void> = [];

  constructor(
    private readonly store: GridStore,
    private readonly membership: MembershipStore,
    private readonly settings: WriterSettings,
    readonly hooks: WriterHooks = {},
  ) {
    this.queue =
      settings.queueMaxWaitMs > 0
        ? new ProfileQueue(settings.queueMaxWaitMs, settings.retryAfterS)
        : undefined;
  }

  /** One write of `profileId`, in turn with this process's other writes to it (profile-queue.ts). */
  writeGrid<R>(
    profileId: bigint,
    planner: GridPlanner<R>,
    options: WriteOptions = {},
  ): Promise<WriteOutcome<R>> {
    const write = () => this.attempts(profileId, planner, options);
    return this.queue ? this.queue.run(profileId, write) : write();
  }

  private async attempts<R>(
    profileId: bigint,
    planner: GridPlanner<R>,
    options: WriteOptions,
  ): Promise<WriteOutcome<R>> {
    const { maxAttempts } = this.settings;
    let outcomeUnknown = false;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const snapshot = await this.store.readSnapshot(profileId);
      await this.membership.rollForward(profileId, snapshot.head);
      await options.interceptor?.onSnapshot?.(snapshot);
      const { version, generation } = snapshot.head;
      const nextVersion = version + 1n;
      const decision = await planner({
        profileId,
        snapshot,
        nextVersion,
        attempt,
        outcomeUnknown,
      });
      if (decision.kind === 'skip') {
        recordAttempts(attempt);
        return {
          result: decision.result,
          version,
          generation,
          committed: false,
          attempts: attempt,
        };
      }
      const extra = options.interceptor?.extraStatics?.(snapshot, nextVersion, decision.result);
      const { effects, statics: membership } = await membershipStatics(
        this.store,
        profileId,
        snapshot,
        decision.mutation,
        nextVersion,
      );
      const statics = { ...decision.mutation.statics, ...extra, ...membership };
      const mutation: GridMutation = { ...decision.mutation, statics };
      const cas = await this.store.casGrid(profileId, version, nextVersion, mutation);
      if (cas.applied) {
        recordAttempts(attempt);
        recordCommit(decision.mutation);
        const event: CommitEvent = {
          profileId,
          version: nextVersion,
          generation,
          mutation,
          before: snapshot,
        };
        await this.hooks.afterCas?.(event);
        if (effects) await this.applyOwn(profileId, effects);
        await this.notify(event);
        return {
          result: decision.result,
          version: nextVersion,
          generation,
          committed: true,
          attempts: attempt,
        };
      }
      recordCasMiss(cas.reason);
      if (cas.reason === 'timeout') outcomeUnknown = true;
      if (attempt < maxAttempts) await sleep(this.backoff(attempt));
    }
    recordAttempts(maxAttempts);
    // A round that timed out may have committed: "contention" would claim it was not applied.
    if (outcomeUnknown) {
      throw new DomainError(
        'write_outcome_unknown',
        'a compare-and-set timed out and later attempts lost: it may or may not have been applied',
        { retry_after_s: this.settings.retryAfterS, attempts: maxAttempts },
      );
    }
    throw new DomainError('contention', 'the grid is being changed concurrently; retry shortly', {
      retry_after_s: this.settings.retryAfterS,
      attempts: maxAttempts,
    });
  }

  /**
   * The commit stands whatever happens here: a failure leaves the record unapplied, and the
   * next reader or writer of the grid rolls it forward before looking at the side tables.
   */
  private async applyOwn(profileId: bigint, effects: Effects): Promise<void> {
    try {
      await this.membership.apply(profileId, effects);
    } catch (err) {
      this.hooks.log?.(
        `membership effects of ${profileId}@${effects.version} left for roll-forward`,
        err,
      );
    }
  }

  /** Full jitter: uniform in [0, min(max, base · 2^attempt)). */
  private backoff(attempt: number): number {
    const cap = Math.min(this.settings.maxBackoffMs, this.settings.baseBackoffMs * 2 ** attempt);
    return Math.random() * cap;
  }

  /** Registers a step run after every commit (failures are logged, never surfaced). */
  afterEachCommit(hook: (event: CommitEvent) => Promise<void> | void): void {
    this.ownHooks.push(hook);
  }

  private async notify(event: CommitEvent): Promise<void> {
    for (const hook of [...(this.hooks.onCommitted ?? []), ...this.ownHooks]) {
      try {
        await hook(event);
      } catch (err) {
        this.hooks.log?.(`onCommitted hook failed for profile ${event.profileId}`, err);
      }
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
