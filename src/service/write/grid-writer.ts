/**
 * The single version-bump path: every change to a grid (moves, new posts, deletes, pins,
 * archive, reset, batch order, collaborators, takedown) goes through `writeGrid`.
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
 * Writes to one profile from this process wait in line (group-queue.ts); the writes waiting
 * when their turn comes are planned one after another on one snapshot and committed in one
 * batch that advances the version by their number (group commit, group-commit.ts): each still
 * gets its own version, idempotency outcome and undo record, and a refused one fails alone.
 *
 * Membership (domain/membership.ts): a planner that changes which posts the grid holds returns
 * side-table `effects`; they are recorded in the same batch (with a timestamp above the previous
 * record's) and applied right after the commit. Such a write always commits alone. Before
 * planning, a snapshot whose record is not yet marked applied is rolled forward first, so the
 * planner's reads of grid rows and archive records show exactly the snapshot's version.
 *
 * Extension points:
 * - planners (see move.ts, posts-service.ts) return the mutation plus the result to hand back;
 *   returning `skip` ends the write without a bump (e.g. an idempotent replay, a no-op);
 * - `WriteOptions.interceptor` sees every snapshot (may throw to stop, e.g. an idempotency replay)
 *   and may add static cells to the same batch (e.g. the idempotency request ring);
 * - `hooks.onCommitted` runs after each successful batch (cache refill / invalidation); its
 *   failures are logged, never surfaced: the write has already happened.
 */
import { AsyncResource } from 'node:async_hooks';
import type { Effects } from '../../domain/membership.js';
import { statementScope } from '../../store/cql-budget.js';
import type { GridStore } from '../../store/grid-store.js';
import type { MembershipStore } from '../../store/membership-store.js';
import { CarriedStates } from './carried-states.js';
import { commitGroup } from './group-commit.js';
import { GroupQueue } from './group-queue.js';
import type { GroupMember } from './group-round.js';
import type {
  CommitEvent,
  GridPlanner,
  Publication,
  WriteOptions,
  WriteOutcome,
  WriterHooks,
  WriterSettings,
} from './write-types.js';

export type {
  CommitEvent,
  GridPlanner,
  PlanContext,
  WriteInterceptor,
  WriteOptions,
  WriteOutcome,
  WriterHooks,
  WriterSettings,
} from './write-types.js';
export { writerSettingsOf } from './write-types.js';

export class GridWriter {
  private readonly queue: GroupQueue<GroupMember> | undefined;
  /** Per profile: where its next round may start without reading (carried-states.ts). */
  private readonly carried: CarriedStates;
  /** The service's own post-commit steps (the cache), after the caller's `hooks.onCommitted`. */
  private readonly ownHooks: Array<(event: CommitEvent) => Promise<void> | void> = [];
  /** The change stream (service/changes/publication.ts); absent = not published. */
  private publication: Publication | undefined;

  constructor(
    private readonly store: GridStore,
    private readonly membership: MembershipStore,
    private readonly settings: WriterSettings,
    readonly hooks: WriterHooks = {},
  ) {
    this.carried = new CarriedStates(settings.carry);
    this.queue =
      settings.queueMaxWaitMs > 0
        ? new GroupQueue(
            {
              maxWaitMs: settings.queueMaxWaitMs,
              retryAfterS: settings.retryAfterS,
              maxTake: settings.group.maxWrites,
            },
            (profileId, members) => this.commit(profileId, members),
            (profileId) => this.carried.park(profileId),
          )
        : undefined;
  }

  /**
   * One write of `profileId`: in line with this process's other writes to it, and committed
   * together with those queued beside it (group-queue.ts, group-commit.ts).
   */
  writeGrid<R>(
    profileId: bigint,
    planner: GridPlanner<R>,
    options: WriteOptions = {},
  ): Promise<WriteOutcome<R>> {
    return new Promise<WriteOutcome<R>>((resolve, reject) => {
      // Planners run in the caller's async context: its operation label, its request deadline.
      const context = new AsyncResource('regrid.grid-write');
      const member: GroupMember = {
        planner: planner as GridPlanner<unknown>,
        options,
        scope: statementScope.getStore(),
        run: (f) => context.runInAsyncScope(f),
        outcomeUnknown: false,
        resolve: (o) => resolve(o as WriteOutcome<R>),
        reject,
      };
      if (this.queue) this.queue.push(profileId, member);
      else void this.commit(profileId, [member]); // no queue: every write races alone
    });
  }

  /** Writes of this process waiting in line for the profile's next round (tests, metrics). */
  queued(profileId: bigint): number {
    return this.queue?.waiting(profileId) ?? 0;
  }

  private async commit(profileId: bigint, members: GroupMember[]): Promise<GroupMember[]> {
    const pub = this.publication?.open(profileId);
    const deps = {
      store: this.store,
      membership: this.membership,
      settings: this.settings,
      ...(pub ? { beforeBatch: () => pub.beforeBatch() } : {}),
      committed: async (event: CommitEvent, plan: { effects: Effects | undefined }) => {
        pub?.applied();
        if (this.hooks.afterCas) await this.hooks.afterCas(event);
        if (plan.effects) await this.applyOwn(profileId, plan.effects);
        pub?.publish(event);
        await this.notify(event);
      },
    };
    // Only a queue's rounds follow each other; racing writes always read.
    const start = this.queue ? this.carried.take(profileId) : undefined;
    const out = await commitGroup(deps, profileId, members, start?.carried, start?.idle);
    pub?.done();
    if (out.stale) this.carried.markShared(profileId);
    this.carried.put(profileId, this.queue ? out.carried : undefined);
    return out.back;
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

  /** Publishes every commit's versions to the change stream (set once, before any write). */
  publishWith(publication: Publication): void {
    this.publication = publication;
  }

  /** Registers a step run after every commit (failures are logged, never surfaced). */
  afterEachCommit(hook: (event: CommitEvent) => Promise<void> | void): void {
    this.ownHooks.push(hook);
  }

  private async notify(event: CommitEvent): Promise<void> {
    for (const hook of [...(this.hooks.onCommitted ?? []), ...this.ownHooks]) {
      try {
        // A hook that returns no promise (the snapshot memo) costs no turn of the queue.
        const done = hook(event);
        if (done) await done;
      } catch (err) {
        this.hooks.log?.(`onCommitted hook failed for profile ${event.profileId}`, err);
      }
    }
  }
}
