/**
 * The single version-bump path: every change to a grid (moves, new posts, deletes, and later
 * pins, archive, reset, batch order, collaborators, takedown) goes through `writeGrid`.
 *
 * One attempt = read the override partition (head + all overrides, one query), let the planner
 * decide from that snapshot, and commit its mutation with ONE conditional batch that also bumps
 * the version (`IF version = <read>`). A lost compare-and-set means someone else committed in
 * between: re-read and re-plan (the planner must be a pure function of what it reads), up to
 * CAS_MAX_ATTEMPTS with jittered exponential backoff, then DomainError('contention') (HTTP 503
 * with Retry-After). A Paxos timeout leaves the outcome unknown; it is handled like a lost CAS:
 * the re-read shows the truth and the planner decides again (moves are anchor-based, so applying
 * "put P after A" on top of itself is harmless; it only costs one extra version).
 *
 * Extension points:
 * - planners (see move.ts, posts-service.ts) return the mutation plus the result to hand back;
 *   returning `skip` ends the write without a bump (e.g. an idempotent replay, a no-op);
 * - `WriteOptions.interceptor` sees every snapshot (may throw to stop, e.g. an idempotency replay)
 *   and may add static cells to the same batch (e.g. the idempotency request ring);
 * - `hooks.onCommitted` runs after each successful commit (cache refill / invalidation); its
 *   failures are logged, never surfaced: the write has already happened.
 */
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { GridMutation, StaticWrites } from '../store/grid-mutation.js';
import type { GridStore, OverridesSnapshot } from '../store/grid-store.js';

export interface PlanContext {
  readonly profileId: bigint;
  readonly snapshot: OverridesSnapshot;
  /** The version this write will commit if its compare-and-set wins. */
  readonly nextVersion: bigint;
  /** 1-based. */
  readonly attempt: number;
  /**
   * An earlier attempt of this write timed out (outcome unknown): it may have committed, so a
   * planner must not re-apply a relative change such as the post count's delta (post-count.ts).
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
}

export const writerSettingsOf = (config: Config): WriterSettings => ({
  maxAttempts: config.CAS_MAX_ATTEMPTS,
  baseBackoffMs: 5,
  maxBackoffMs: 200,
  retryAfterS: 1,
});

export class GridWriter {
  constructor(
    private readonly store: GridStore,
    private readonly settings: WriterSettings,
    readonly hooks: WriterHooks = {},
  ) {}

  async writeGrid<R>(
    profileId: bigint,
    planner: GridPlanner<R>,
    options: WriteOptions = {},
  ): Promise<WriteOutcome<R>> {
    const { maxAttempts } = this.settings;
    let outcomeUnknown = false;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const snapshot = await this.store.readOverrides(profileId);
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
        return {
          result: decision.result,
          version,
          generation,
          committed: false,
          attempts: attempt,
        };
      }
      const extra = options.interceptor?.extraStatics?.(snapshot, nextVersion, decision.result);
      const mutation: GridMutation = extra
        ? { ...decision.mutation, statics: { ...decision.mutation.statics, ...extra } }
        : decision.mutation;
      const cas = await this.store.casGrid(profileId, version, nextVersion, mutation);
      if (cas.applied) {
        const event: CommitEvent = { profileId, version: nextVersion, generation, mutation };
        await this.hooks.afterCas?.(event);
        await this.notify(event);
        return {
          result: decision.result,
          version: nextVersion,
          generation,
          committed: true,
          attempts: attempt,
        };
      }
      if (cas.reason === 'timeout') outcomeUnknown = true;
      if (attempt < maxAttempts) await sleep(this.backoff(attempt));
    }
    throw new DomainError('contention', 'the grid is being changed concurrently; retry shortly', {
      retry_after_s: this.settings.retryAfterS,
      attempts: maxAttempts,
    });
  }

  /** Full jitter: uniform in [0, min(max, base · 2^attempt)). */
  private backoff(attempt: number): number {
    const cap = Math.min(this.settings.maxBackoffMs, this.settings.baseBackoffMs * 2 ** attempt);
    return Math.random() * cap;
  }

  private async notify(event: CommitEvent): Promise<void> {
    for (const hook of this.hooks.onCommitted ?? []) {
      try {
        await hook(event);
      } catch (err) {
        this.hooks.log?.(`onCommitted hook failed for profile ${event.profileId}`, err);
      }
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
